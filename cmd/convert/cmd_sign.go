package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/contextreceipts/convert/internal/receipt"
	"os"
	"path/filepath"

	"github.com/contextreceipts/convert/internal/sign"
	"github.com/urfave/cli/v2"
)

// Environment variables that carry keys. *_FILE names a file; the other
// holds the key material itself (PEM or hmac secret), for CI secret stores.
const (
	envSignKeyFile   = "CONVERT_SIGNING_KEY_FILE"
	envSignKey       = "CONVERT_SIGNING_KEY"
	envVerifyKeyFile = "CONVERT_VERIFY_KEY_FILE"
	envVerifyKey     = "CONVERT_VERIFY_KEY"
)

// sigSuffix is appended to a receipt's path to name its envelope.
const sigSuffix = ".sig.json"

func signCommand() *cli.Command {
	return &cli.Command{
		Name:      "sign",
		Usage:     "sign receipts: write RECEIPT.sig.json, a DSSE envelope holding an in-toto statement",
		UsageText: "convert sign [--key FILE] [--alg ed25519|hmac-sha256] RECEIPT|DIR...   (a DIR is walked for *.receipt.ndjson; no key given: the one convert keygen wrote)",
		Description: "The statement names the receipt file and the source log (name and sha256) and carries the run\n" +
			"summary. ed25519 (key from convert keygen) is for receipts shared with anyone; hmac-sha256\n" +
			"(hmac-sha256-canonical-v1, a shared secret of 32+ bytes) is for teams. The key comes from --key,\n" +
			envSignKeyFile + " or " + envSignKey + ", else the key convert keygen wrote with no --out\n" +
			"(convert-signing.key or .secret in convert's configuration folder), and is never printed; its key id is.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Aliases: []string{"k"}, EnvVars: []string{envSignKeyFile}, Usage: "key `FILE`: an ed25519 private key (PEM) or an hmac secret"},
			&cli.StringFlag{Name: "alg", Usage: "ed25519 or hmac-sha256 (default: what the key is)"},
		},
		Action: func(c *cli.Context) error {
			cons := con(c)
			if c.NArg() == 0 {
				return usageError("sign needs at least one RECEIPT or DIR")
			}
			files, err := expandFiles(c.Args().Slice(), receiptSuffixes)
			if err != nil {
				return err
			}
			keyFile := c.String("key")
			if keyFile == "" && os.Getenv(envSignKey) == "" {
				if keyFile, err = defaultSigningKey(); err != nil {
					return err
				}
				if keyFile != "" {
					cons.Info("convert: sign: with the key keygen wrote, %s", displayPath(keyFile))
				}
			}
			key, err := loadKey(keyFile, envSignKey)
			if err != nil {
				return err
			}
			if a := c.String("alg"); a != "" && a != sign.Ed25519 && a != sign.HMACSHA256 {
				return usageError("--alg takes ed25519 or hmac-sha256")
			} else if a != "" && a != key.Alg() {
				return usageError("--alg %s but the key is an %s key", a, key.Alg())
			}
			if !key.CanSign() {
				return usageError("the key is a public key; sign with the private key (the .key file)")
			}
			failed := false
			for _, p := range files {
				out, err := signFile(p, key)
				if err != nil {
					cons.Error("convert: sign: %v", err)
					failed = true
					continue
				}
				cons.Result("signed %s -> %s (%s)", p, out, key.ID())
			}
			if failed {
				return exitError{exitFailed}
			}
			return nil
		},
	}
}

func signFile(path string, key *sign.Key) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	st, err := sign.NewStatement(filepath.Base(path), data, key.Alg())
	if err != nil {
		return "", err
	}
	env, err := sign.Sign(st, key)
	if err != nil {
		return "", err
	}
	doc, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return "", err
	}
	out := path + sigSuffix
	if err := os.WriteFile(out, append(doc, '\n'), 0o644); err != nil {
		return "", err
	}
	return out, nil
}

// defaultSigningKey is the signing key keygen writes with no --out, when
// there is one: convert-signing.key (ed25519) or convert-signing.secret
// (hmac-sha256) in convert's configuration folder (keyPrefix); "" when
// there is none. Both there is a usage error: which one is meant is the
// user's to say.
func defaultSigningKey() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", nil
	}
	prefix := filepath.Join(dir, "convert", "convert-signing")
	var found []string
	for _, ext := range []string{".key", ".secret"} {
		if st, err := os.Stat(prefix + ext); err == nil && st.Mode().IsRegular() {
			found = append(found, prefix+ext)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", usageError("sign: keygen wrote two signing keys in %s (an ed25519 one and an hmac-sha256 one): pass --key FILE to say which", displayPath(filepath.Dir(prefix)))
}

// loadKey reads the key from file, or else from the environment variable
// env holding the material. Messages name the source, never the material.
func loadKey(file, env string) (*sign.Key, error) {
	var data []byte
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usageError("cannot read the key file %s", file)
		}
		data = b
	case os.Getenv(env) != "":
		data = []byte(os.Getenv(env))
	default:
		return nil, usageError("no key: pass --key FILE (anywhere on the line) or set %s (convert keygen makes one)", env)
	}
	k, err := sign.ParseKey(data)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return k, nil
}

func keygenCommand() *cli.Command {
	return &cli.Command{
		Name:      "keygen",
		Usage:     "make a key: a signing pair (PREFIX.key, PREFIX.pub), an hmac signing secret (PREFIX.secret), or a hash key for keyed digests (PREFIX.hashkey)",
		UsageText: "convert keygen [--alg ed25519|hmac-sha256|hash] [--out PREFIX] [--force] [--json]",
		Description: "With no --out the key goes to convert's folder in your configuration directory\n" +
			"($XDG_CONFIG_HOME/convert, else ~/.config/convert; made with mode 0700): convert-signing.key\n" +
			"and .pub, convert-signing.secret, or convert.hashkey. An --out inside a git work tree is\n" +
			"refused (a key there is one git add away from a commit) unless --force.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`PREFIX` of the key files (default: in convert's configuration folder)"},
			&cli.StringFlag{Name: "alg", Value: sign.Ed25519, Usage: "ed25519 or hmac-sha256 (signing), or hash (a --hash-key-file key)"},
			&cli.BoolFlag{Name: "force", Usage: "write the key even inside a git work tree"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("keygen takes no arguments")
			}
			prefix, err := keyPrefix(c.String("out"), c.String("alg"), c.Bool("force"))
			if err != nil {
				return err
			}
			// said prints the text line, or under --json the answer: the
			// key's algorithm and id and the files written (never a key).
			said := func(id string, files []keyFile, format string, a ...any) error {
				if c.Bool("json") {
					return printJSON(c, keygenAnswer{Alg: c.String("alg"), KeyID: id, Files: files})
				}
				con(c).Result(format, a...)
				return nil
			}
			switch c.String("alg") {
			case sign.Ed25519:
				priv, pub, id, err := sign.GenerateEd25519()
				if err != nil {
					return err
				}
				if err := writeNew(prefix+".key", priv, 0o600); err != nil {
					return err
				}
				if err := writeNew(prefix+".pub", pub, 0o644); err != nil {
					return err
				}
				return said(id, []keyFile{{prefix + ".key", "private", "0600"}, {prefix + ".pub", "public", "0644"}},
					"wrote %s.key (private: keep it) and %s.pub (public: share it); key id %s", displayPath(prefix), displayPath(prefix), id)
			case sign.HMACSHA256:
				buf := make([]byte, 32)
				if _, err := rand.Read(buf); err != nil {
					return err
				}
				secret := []byte(hex.EncodeToString(buf) + "\n")
				k, err := sign.ParseKey(secret)
				if err != nil {
					return err
				}
				if err := writeNew(prefix+".secret", secret, 0o600); err != nil {
					return err
				}
				return said(k.ID(), []keyFile{{prefix + ".secret", "secret", "0600"}},
					"wrote %s.secret (shared secret: keep it in your team's secret store); key id %s", displayPath(prefix), k.ID())
			case "hash":
				buf := make([]byte, receipt.MinKeyBytes)
				if _, err := rand.Read(buf); err != nil {
					return err
				}
				text := []byte(hex.EncodeToString(buf) + "\n")
				h, err := receipt.NewKeyed(text)
				if err != nil {
					return err // 32 bytes from the system's random source under the entropy floor: try again
				}
				if err := writeNew(prefix+".hashkey", text, 0o600); err != nil {
					return err
				}
				return said(h.KeyID(), []keyFile{{prefix + ".hashkey", "hash_key", "0600"}},
					"wrote %s.hashkey (keep it private; give it to --hash-key-file); key id %s", displayPath(prefix), h.KeyID())
			default:
				return usageError("--alg takes ed25519, hmac-sha256 or hash")
			}
		},
	}
}

// keygenAnswer is keygen --json: what was made and where, never the key.
type keygenAnswer struct {
	Alg   string    `json:"alg"`
	KeyID string    `json:"key_id"`
	Files []keyFile `json:"files"`
}

// keyFile is one file keygen wrote: its path, what it holds (private,
// public, secret or hash_key) and its mode.
type keyFile struct {
	Path string `json:"path"`
	Role string `json:"role"`
	Mode string `json:"mode"`
}

// writeNew writes a file that must not exist yet, so keygen never
// overwrites a key.
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return usageError("%s exists; keygen never overwrites a key", path)
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// keyPrefix is where keygen writes: out as given, refused inside a git work
// tree unless force; with no out, convert's folder in the user's
// configuration directory (made 0700), named after the kind of key.
func keyPrefix(out, alg string, force bool) (string, error) {
	if out == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", usageError("keygen: no configuration directory (%v); give --out", err)
		}
		dir = filepath.Join(dir, "convert")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
		name := "convert-signing"
		if alg == "hash" {
			name = "convert"
		}
		return filepath.Join(dir, name), nil
	}
	if force {
		return out, nil
	}
	abs, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", usageError("keygen: %s is inside the git work tree at %s: a key there is one git add away from a commit; give --out outside it, leave --out off (convert's configuration folder), or add --force", out, displayPath(d))
		}
		if filepath.Dir(d) == d {
			return out, nil
		}
	}
}
