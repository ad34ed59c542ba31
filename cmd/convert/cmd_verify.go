package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/sign"
	"github.com/contextreceipts/convert/internal/untrusted"
	"github.com/urfave/cli/v2"
)

// Verify verdicts beyond exitOK (valid), exitFailed (unreadable or malformed
// envelope, receipt or source) and exitUsage. Codes 3 and 4 keep their run
// meaning, so verify starts at 10.
const (
	exitBadSignature    = 10 // the signature does not match the payload and its type
	exitUnknownKey      = 11 // no signature by the given key
	exitReceiptChanged  = 12 // the receipt file's sha256 is not the signed one
	exitSourceChanged   = 13 // the source log (or a companion) is not the signed one
	exitNotReproducible = 14 // same source, but re-converting it gives other bytes
)

const verifyExitHelp = `VERDICTS (exit codes):
   0  valid: signature, receipt digest and (with --source) byte-identical re-conversion
   1  unreadable or malformed envelope, receipt or source
   2  usage error
  10  bad signature: the signature does not match the payload and its payload type
  11  unknown key: no signature by the given key
  12  receipt changed: the receipt file is not the one signed
  13  source changed: the source log or one of its companion files is not the one signed
  14  not reproducible: same source, but this convert re-converts it to other bytes`

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a signed receipt: signature, receipt digest and, given the source log, a byte-identical re-conversion",
		UsageText: "convert verify [--key FILE] [--receipt FILE] [--source LOG] [--json] ENVELOPE",
		Description: "ENVELOPE is RECEIPT.sig.json from convert sign; the receipt defaults to ENVELOPE without .sig.json.\n" +
			"The key is the signer's public key (ed25519) or the shared secret (hmac-sha256), from --key,\n" +
			envVerifyKeyFile + " or " + envVerifyKey + ". Only the verified payload bytes are read.\n\n" + verifyExitHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Aliases: []string{"k"}, EnvVars: []string{envVerifyKeyFile}, Usage: "key `FILE`: the signer's ed25519 public key (PEM) or the hmac secret"},
			&cli.StringFlag{Name: "receipt", Aliases: []string{"r"}, Usage: "receipt `FILE` (default: ENVELOPE without .sig.json)"},
			&cli.StringFlag{Name: "source", Aliases: []string{"s"}, Usage: "source `LOG`: re-convert it and require the receipt's exact bytes (companion files are found next to it)"},
			&cli.StringFlag{Name: "hash-key-file", EnvVars: []string{"CONVERT_HASH_KEY_FILE"}, Usage: "the --hash-key-file `FILE` the receipt was made with (keyed mode only)"},
			&cli.StringFlag{Name: "reveal", Usage: "the --reveal value the receipt was made with"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("verify needs exactly one ENVELOPE")
			}
			if r := c.String("reveal"); r != "" && r != "names" {
				return usageError("--reveal takes one value: names")
			}
			key, err := loadKey(c.String("key"), envVerifyKey)
			if err != nil {
				return err
			}
			v := verifyEnvelope(c, key)
			if c.Bool("json") {
				if err := printJSON(c, v.answer()); err != nil {
					return err
				}
			}
			if v.code != exitOK {
				con(c).Error("convert: verify: %s", v.msg)
				return exitError{v.code}
			}
			if !c.Bool("json") {
				con(c).Result("%s", v.msg)
			}
			return nil
		},
	}
}

// verdict is what verify found: the line it prints, its exit code, and
// for --json what was checked.
type verdict struct {
	msg, envelope, receipt, keyID string
	code                          int
	sourceChecked                 bool
}

// verdictNames name verify's exit codes in its --json answer.
var verdictNames = map[int]string{
	exitOK: "valid", exitFailed: "unreadable", exitUsage: "usage", exitBadSignature: "bad_signature", exitUnknownKey: "unknown_key",
	exitReceiptChanged: "receipt_changed", exitSourceChanged: "source_changed", exitNotReproducible: "not_reproducible",
}

// verifyAnswer is verify --json: one object on stdout, whatever the verdict.
type verifyAnswer struct {
	Valid         bool   `json:"valid"`
	Verdict       string `json:"verdict"`
	ExitCode      int    `json:"exit_code"`
	Envelope      string `json:"envelope"`
	Receipt       string `json:"receipt"` // "" when the signature failed before any receipt was read
	KeyID         string `json:"key_id"`
	SourceChecked bool   `json:"source_checked"`
	Message       string `json:"message"`
}

func (v verdict) answer() verifyAnswer {
	return verifyAnswer{Valid: v.code == exitOK, Verdict: verdictNames[v.code], ExitCode: v.code, Envelope: v.envelope,
		Receipt: v.receipt, KeyID: v.keyID, SourceChecked: v.sourceChecked && v.code == exitOK, Message: v.msg}
}

// verifyEnvelope checks the envelope and returns the verdict.
func verifyEnvelope(c *cli.Context, key *sign.Key) verdict {
	v := verdict{envelope: c.Args().First(), keyID: key.ID(), sourceChecked: c.String("source") != ""}
	v.msg, v.code = checkEnvelope(c, key, &v.receipt)
	return v
}

// checkEnvelope returns the verdict line and its exit code, and sets
// *receipt to the receipt file it checked.
func checkEnvelope(c *cli.Context, key *sign.Key, receipt *string) (string, int) {
	envPath := c.Args().First()
	raw, err := os.ReadFile(envPath)
	if err != nil { // the ENVELOPE argument itself: a usage error
		return fmt.Sprintf("%s: %v", displayPath(envPath), errors.Unwrap(err)), exitUsage
	}
	var env sign.Envelope
	if err := json.Unmarshal(raw, &env); err != nil || env.Payload == "" || len(env.Signatures) == 0 {
		return fmt.Sprintf("%s: not a DSSE envelope", displayPath(envPath)), exitFailed
	}
	payload, err := sign.Verify(&env, key)
	switch {
	case errors.Is(err, sign.ErrUnknownKey):
		return err.Error(), exitUnknownKey
	case err != nil && env.PayloadType != sign.PayloadType:
		// The signer chose the type: shown as every value read back
		// (its digest unless it is a receipt's word), never quoted as
		// sign's message would, text and terminal escapes included.
		return fmt.Sprintf("%v: payload type %s is not %s", sign.ErrBadSignature, untrusted.Show(env.PayloadType), sign.PayloadType), exitBadSignature
	case err != nil:
		return err.Error(), exitBadSignature
	}
	st, err := sign.ParseStatement(payload)
	if err != nil {
		return fmt.Sprintf("%s: %v", displayPath(envPath), err), exitFailed // sign.ParseStatement quotes nothing of the envelope
	}
	if a := st.Predicate.Algorithm; a != key.Alg() && !(a == sign.HMACCanonical && key.Alg() == sign.HMACSHA256) {
		return fmt.Sprintf("bad signature: the statement was signed as %s, the key is %s", untrusted.Show(a), key.Alg()), exitBadSignature
	}
	recPath := c.String("receipt")
	if recPath == "" {
		recPath = strings.TrimSuffix(envPath, sigSuffix)
		if recPath == envPath {
			return "the envelope is not named RECEIPT.sig.json; pass --receipt FILE", exitUsage
		}
	}
	*receipt = recPath
	rec, err := os.ReadFile(recPath)
	if err != nil {
		return fmt.Sprintf("%s: %v", displayPath(recPath), errors.Unwrap(err)), exitFailed
	}
	want := st.Find(sign.RoleReceipt).Digest["sha256"]
	if got := sha256Hex(rec); got != want {
		return fmt.Sprintf("receipt changed: %s has sha256:%s, the signed receipt %s has %s", displayPath(recPath), got,
			untrusted.Show(st.Find(sign.RoleReceipt).Name), untrusted.Show("sha256:"+want)), exitReceiptChanged
	}
	verdict := fmt.Sprintf("valid: %s signed by %s; receipt sha256 matches", displayPath(recPath), key.ID())
	src := c.String("source")
	if src == "" {
		return verdict + " (source not checked: pass --source LOG)", exitOK
	}
	msg, code := reconvert(c, st, src, rec)
	if code != exitOK {
		return msg, code
	}
	return verdict + "; " + msg, exitOK
}

// reconvert checks the source log's digest, then converts it again with the
// signed converter and requires the receipt's exact bytes.
func reconvert(c *cli.Context, st *sign.Statement, src string, rec []byte) (string, int) {
	got, err := sha256File(src)
	if err != nil {
		// A session of a database (opencode.db/ses_x): its records' digest.
		if sum, ok, serr := pipeline.SessionSHA256(src); ok {
			got, err = sum, serr
		}
	}
	if err != nil {
		return fmt.Sprintf("%s: %v", displayPath(src), errors.Unwrap(err)), exitFailed
	}
	subj := st.Find(sign.RoleSource)
	if got != subj.Digest["sha256"] {
		return fmt.Sprintf("source changed: %s has sha256:%s, the signed source %s has %s", displayPath(src), got,
			untrusted.Show(subj.Name), untrusted.Show("sha256:"+subj.Digest["sha256"])), exitSourceChanged
	}
	if v := st.Predicate.Version; v != pipeline.Version {
		return fmt.Sprintf("not reproducible: the receipt was made by convert %s, this is %s", untrusted.Show(v), pipeline.Version), exitNotReproducible
	}
	sum, err := sign.ReadSummary("receipt", rec)
	if err != nil {
		return err.Error(), exitFailed
	}
	var h receipt.Hasher
	if sum.HashKeyID != "" {
		kf := c.String("hash-key-file")
		if kf == "" {
			return fmt.Sprintf("the receipt was made in keyed mode (hash key id %s); pass --hash-key-file", keyIDShown(sum.HashKeyID)), exitUsage
		}
		b, err := os.ReadFile(kf)
		if err != nil {
			return "--hash-key-file: cannot read the key file", exitUsage
		}
		if h, err = receipt.NewKeyed(bytes.TrimSpace(b)); err != nil || h.KeyID() != sum.HashKeyID {
			return fmt.Sprintf("--hash-key-file: not the hash key the receipt was made with (%s)", keyIDShown(sum.HashKeyID)), exitUsage
		}
	}
	ins, err := pipeline.ExpandContext(c.Context, []string{src})
	if err != nil || len(ins) != 1 {
		return fmt.Sprintf("%s: cannot read the source", displayPath(src)), exitFailed
	}
	pipeline.NameInputs(ins, inputNamer(con(c).tty, h))
	res := pipeline.Convert(ins[0], pipeline.Options{Converter: st.Predicate.Converter, Hash: h, Reveal: c.String("reveal") == "names"})
	if res.Err != nil {
		return fmt.Sprintf("not reproducible: re-converting %s failed: %v", displayPath(src), res.Err), exitNotReproducible
	}
	if bytes.Equal(res.Receipt, rec) {
		n := len(ins[0].Companions)
		if n > 0 {
			return fmt.Sprintf("source %s and %d companion files re-converted byte-identical", filepath.Base(src), n), exitOK
		}
		return fmt.Sprintf("source %s re-converted byte-identical", filepath.Base(src)), exitOK
	}
	if again, err := sign.ReadSummary("re-conversion", res.Receipt); err == nil {
		if signed, _ := subj.Annotations["convert.input.group_sha256"].(string); signed != again.GroupSHA256 {
			return fmt.Sprintf("source changed: the companion files of %s are not the signed ones (group %s, signed %s)", displayPath(src), orNone(again.GroupSHA256), untrusted.Show(orNone(signed))), exitSourceChanged
		}
	}
	return fmt.Sprintf("not reproducible: %s has the signed digest but re-converts to other bytes (different flags or converter build?)", displayPath(src)), exitNotReproducible
}

// sha256File hashes a file as a stream: a log of any size is never held in
// memory to be hashed.
func sha256File(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// keyIDShown is a hash key id read from a receipt as a message shows it:
// 16 lower-case hex digits (what convert writes), else by digest.
func keyIDShown(id string) string {
	if len(id) == 16 && strings.Trim(id, "0123456789abcdef") == "" {
		return id
	}
	return untrusted.Show(id)
}
