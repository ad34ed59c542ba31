// Package sign makes and checks shareable receipt attestations: a DSSE
// envelope whose payload is an in-toto Statement v1 naming the receipt file
// and its source log, signed with ed25519 (for strangers) or with
// HMAC-SHA256 under a shared secret (seed 003's hmac-sha256-canonical-v1).
// Both sign the DSSE pre-authentication encoding (PAE) of the payload type
// and the RFC 8785 canonical payload bytes, so the payload type is bound.
package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"

	"github.com/contextreceipts/convert/internal/keycheck"
	"github.com/gowebpki/jcs"
)

// Envelope and statement constants.
const (
	PayloadType   = "application/vnd.in-toto+json"
	StatementType = "https://in-toto.io/Statement/v1"
	PredicateType = "https://github.com/contextreceipts/convert/receipt-summary/v1"
)

// Algorithms, as named on the command line and in key ids.
const (
	Ed25519    = "ed25519"
	HMACSHA256 = "hmac-sha256"
	// HMACCanonical is seed 003's name for HMAC-SHA256 over canonical bytes.
	HMACCanonical = "hmac-sha256-canonical-v1"
)

// Envelope is a DSSE envelope (github.com/secure-systems-lab/dsse).
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"` // base64 (standard encoding)
	Signatures  []Signature `json:"signatures"`
}

// Signature is one DSSE signature: the key id and the base64 signature.
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// PAE is the DSSE v1 pre-authentication encoding of a payload type and body.
func PAE(payloadType string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteByte(' ')
	b.Write(body)
	return b.Bytes()
}

// Key is a signing or verifying key. The key material is unexported and is
// never formatted: String prints the key id only.
type Key struct {
	alg  string
	priv ed25519.PrivateKey // nil for a verify-only ed25519 key
	pub  ed25519.PublicKey
	mac  []byte
	id   string
	// legacy is the v1 id of an hmac secret, accepted on old envelopes only.
	legacy string
}

// Alg is Ed25519 or HMACSHA256.
func (k *Key) Alg() string { return k.alg }

// ID is the key id: the algorithm and 16 hex digits of a digest of the
// public key (ed25519), or of an HMAC under the secret of a domain label
// (hmac): computing it needs the secret, so it confirms no guess.
func (k *Key) ID() string { return k.id }

// CanSign reports whether the key holds private material.
func (k *Key) CanSign() bool { return k.priv != nil || k.mac != nil }

// String is the key id, so a key printed by mistake reveals nothing.
func (k *Key) String() string { return k.id }

// GoString is the key id too.
func (k *Key) GoString() string { return k.id }

// MinSecret is the fewest random bytes an HMAC secret encodes.
const MinSecret = keycheck.MinBytes

// ParseKey reads key material: a PEM ed25519 private key (PKCS#8) or public
// key (PKIX), or else an HMAC secret (surrounding white space trimmed). Errors
// never quote the material.
func ParseKey(data []byte) (*Key, error) {
	if blk, _ := pem.Decode(data); blk != nil {
		switch blk.Type {
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
			if err != nil {
				return nil, errors.New("key: not a valid PKCS#8 private key")
			}
			priv, ok := k.(ed25519.PrivateKey)
			if !ok {
				return nil, errors.New("key: private key is not ed25519")
			}
			return edKey(priv, priv.Public().(ed25519.PublicKey)), nil
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(blk.Bytes)
			if err != nil {
				return nil, errors.New("key: not a valid PKIX public key")
			}
			pub, ok := k.(ed25519.PublicKey)
			if !ok {
				return nil, errors.New("key: public key is not ed25519")
			}
			return edKey(nil, pub), nil
		default:
			return nil, fmt.Errorf("key: unsupported PEM block %q", blk.Type)
		}
	}
	secret := bytes.TrimSpace(data)
	if _, err := keycheck.Decode(secret); err != nil {
		return nil, fmt.Errorf("key: the hmac secret is %w; make one with: convert keygen --alg hmac-sha256", err)
	}
	// The secret's text is the MAC key, as it always was: envelopes signed
	// before still verify. Its id is a keyed derivation (v2); the v1 id, a
	// plain digest that confirmed a guessed secret offline, is only
	// accepted on envelopes signed before.
	v1 := sha256.Sum256(append([]byte("convert.sign-key-id.v1\x00"), secret...))
	return &Key{alg: HMACSHA256, mac: append([]byte(nil), secret...),
		id:     HMACSHA256 + ":" + keycheck.ID(secret, "convert.sign-key-id.v2"),
		legacy: HMACSHA256 + ":" + hex.EncodeToString(v1[:8])}, nil
}

func edKey(priv ed25519.PrivateKey, pub ed25519.PublicKey) *Key {
	sum := sha256.Sum256(pub)
	return &Key{alg: Ed25519, priv: priv, pub: pub, id: Ed25519 + ":" + hex.EncodeToString(sum[:8])}
}

// GenerateEd25519 makes a key pair and returns it PEM-encoded: the private
// key (PKCS#8) and the public key (PKIX).
func GenerateEd25519() (privPEM, pubPEM []byte, id string, err error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, nil, "", err
	}
	pd, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, "", err
	}
	bd, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, "", err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pd}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: bd}), edKey(nil, pub).id, nil
}

// PublicPEM is the PEM public key of an ed25519 key, to hand to verifiers.
func (k *Key) PublicPEM() ([]byte, error) {
	if k.alg != Ed25519 {
		return nil, errors.New("key: an hmac secret has no public part")
	}
	bd, err := x509.MarshalPKIXPublicKey(k.pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: bd}), nil
}

func (k *Key) sign(msg []byte) []byte {
	if k.alg == Ed25519 {
		return ed25519.Sign(k.priv, msg)
	}
	m := hmac.New(sha256.New, k.mac)
	m.Write(msg)
	return m.Sum(nil)
}

func (k *Key) verify(msg, sig []byte) bool {
	if k.alg == Ed25519 {
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.pub, msg, sig)
	}
	m := hmac.New(sha256.New, k.mac)
	m.Write(msg)
	return subtle.ConstantTimeCompare(m.Sum(nil), sig) == 1
}

// Sign canonicalizes statement (RFC 8785) and wraps it in a DSSE envelope
// signed by key.
func Sign(statement any, key *Key) (*Envelope, error) {
	if !key.CanSign() {
		return nil, errors.New("sign: the key is a public key; signing needs the private key")
	}
	raw, err := json.Marshal(statement)
	if err != nil {
		return nil, err
	}
	payload, err := jcs.Transform(raw)
	if err != nil {
		return nil, err
	}
	sig := key.sign(PAE(PayloadType, payload))
	return &Envelope{PayloadType: PayloadType, Payload: base64.StdEncoding.EncodeToString(payload),
		Signatures: []Signature{{KeyID: key.id, Sig: base64.StdEncoding.EncodeToString(sig)}}}, nil
}

// Verification errors. Each is a distinct verdict.
var (
	ErrUnknownKey   = errors.New("unknown key")
	ErrBadSignature = errors.New("bad signature")
)

// Verify checks env against key and returns exactly the verified payload
// bytes (verify, then read: callers must parse only these). It fails with
// ErrUnknownKey when no signature carries the key's id, and ErrBadSignature
// when the signature does not match PAE(payloadType, payload), the payload
// type is not the in-toto one, or an hmac payload is not canonical.
func Verify(env *Envelope, key *Key) ([]byte, error) {
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, fmt.Errorf("%w: payload is not base64", ErrBadSignature)
	}
	found := false
	for _, s := range env.Signatures {
		if s.KeyID != key.id && (key.legacy == "" || s.KeyID != key.legacy) {
			continue
		}
		found = true
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil || !key.verify(PAE(env.PayloadType, payload), sig) {
			continue
		}
		if env.PayloadType != PayloadType {
			return nil, fmt.Errorf("%w: payload type %q is not %q", ErrBadSignature, env.PayloadType, PayloadType)
		}
		if key.alg == HMACSHA256 {
			canon, err := jcs.Transform(payload)
			if err != nil || !bytes.Equal(canon, payload) {
				return nil, fmt.Errorf("%w: payload is not RFC 8785 canonical", ErrBadSignature)
			}
		}
		return payload, nil
	}
	if !found {
		return nil, fmt.Errorf("%w: no signature by %s", ErrUnknownKey, key.id)
	}
	return nil, fmt.Errorf("%w: the signature by %s does not match the payload and its type", ErrBadSignature, key.id)
}
