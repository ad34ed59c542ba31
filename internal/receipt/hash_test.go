package receipt

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
)

// TestDigestsAreTheStandardOnes: a plain digest is sha256 and a keyed one
// HMAC-SHA256 under the key, written mode:hex, whatever goroutine asks
// (keyed digests reuse their HMACs).
func TestDigestsAreTheStandardOnes(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	keyed, err := NewKeyed([]byte(hex.EncodeToString(key)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				in := []byte(fmt.Sprintf("CANARY-%d-%d", g, i))
				plain := sha256.Sum256(in)
				if got, want := (Hasher{}).Bytes(in), "sha256:"+hex.EncodeToString(plain[:]); got != want {
					t.Errorf("plain %q: %s, want %s", in, got, want)
					return
				}
				m := hmac.New(sha256.New, key)
				m.Write(in)
				if got, want := keyed.Bytes(in), "hmac-sha256:"+hex.EncodeToString(m.Sum(nil)); got != want {
					t.Errorf("keyed %q: %s, want %s", in, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
