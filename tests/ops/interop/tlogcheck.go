// tlogcheck checks an Osmosis server's public log with Go's golang.org/x/mod/sumdb/note and sumdb/tlog, code
// that nobody on the project wrote: it opens the served checkpoint with the pinned verifier key, recomputes the
// root from the served tiles (authenticated as Go authenticates the checksum database's), proves and checks
// each leaf of a game and a consistency proof, and compares its own proofs with the server's.
//
// Usage: tlogcheck BASE_URL VERIFIER_KEY GAME_ID OLD_SIZE
// It prints one JSON object of what it checked and exits 0; any failure is printed and exits 1.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

var client = &http.Client{Timeout: 30 * time.Second}

func fetch(url string) []byte {
	response, err := client.Get(url)
	if err != nil {
		fail("GET %s: %v", url, err)
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil || response.StatusCode != http.StatusOK {
		fail("GET %s: %d %v %s", url, response.StatusCode, err, body)
	}
	return body
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "tlogcheck: "+format+"\n", args...)
	os.Exit(1)
}

// tiles reads the C2SP tlog-tiles the server serves: Go's tile/8/L/N[.p/W] is C2SP's tile/L/N[.p/W].
type tiles struct{ base string }

func (t tiles) Height() int { return 8 }

func (t tiles) ReadTiles(wanted []tlog.Tile) ([][]byte, error) {
	data := make([][]byte, len(wanted))
	for i, tile := range wanted {
		data[i] = fetch(t.base + "/log/tile/" + strings.TrimPrefix(tile.Path(), "tile/8/"))
	}
	return data, nil
}

func (t tiles) SaveTiles([]tlog.Tile, [][]byte) {}

func hashOf(encoded string) tlog.Hash {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(raw) != tlog.HashSize {
		fail("not a base64 hash: %q", encoded)
	}
	var hash tlog.Hash
	copy(hash[:], raw)
	return hash
}

func hashesOf(encoded []string) []tlog.Hash {
	hashes := make([]tlog.Hash, len(encoded))
	for i, e := range encoded {
		hashes[i] = hashOf(e)
	}
	return hashes
}

// openCheckpoint verifies a C2SP checkpoint's signature with note.Open and reads its origin, size and root.
func openCheckpoint(text []byte, verifier note.Verifier) (string, tlog.Tree) {
	opened, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.Split(opened.Text, "\n")
	if len(lines) < 4 {
		fail("a checkpoint has at least three lines: %q", opened.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("checkpoint size: %v", err)
	}
	return lines[0], tlog.Tree{N: size, Hash: hashOf(lines[2])}
}

func main() {
	if len(os.Args) != 5 {
		fail("usage: tlogcheck BASE_URL VERIFIER_KEY GAME_ID OLD_SIZE")
	}
	base, vkey, game := strings.TrimRight(os.Args[1], "/"), os.Args[2], os.Args[3]
	oldSize, err := strconv.ParseInt(os.Args[4], 10, 64)
	if err != nil {
		fail("OLD_SIZE: %v", err)
	}
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		fail("note.NewVerifier: %v", err)
	}

	served := fetch(base + "/log/checkpoint")
	origin, tree := openCheckpoint(served, verifier)
	reader := tlog.TileHashReader(tree, tiles{base})
	root, err := tlog.TreeHash(tree.N, reader)
	if err != nil || root != tree.Hash {
		fail("the root recomputed from the tiles is %v (%v), the checkpoint's %v", root, err, tree.Hash)
	}

	var proofs struct {
		TreeSize int64 `json:"tree_size"`
		Leaves   []struct {
			Index     int64    `json:"index"`
			Kind      string   `json:"kind"`
			Entry     string   `json:"entry"`
			Inclusion []string `json:"inclusion_proof"`
		} `json:"leaves"`
	}
	if err := json.Unmarshal(fetch(base+"/games/"+game+"/transparency"), &proofs); err != nil {
		fail("transparency: %v", err)
	}
	checked := []string{}
	for _, leaf := range proofs.Leaves {
		record := tlog.RecordHash([]byte(leaf.Entry))
		servedProof := tlog.RecordProof(hashesOf(leaf.Inclusion))
		if err := tlog.CheckRecord(servedProof, tree.N, tree.Hash, leaf.Index, record); err != nil {
			fail("tlog.CheckRecord of leaf %d (%s): %v", leaf.Index, leaf.Kind, err)
		}
		ownProof, err := tlog.ProveRecord(tree.N, leaf.Index, reader)
		if err != nil || !equal(ownProof, servedProof) {
			fail("tlog.ProveRecord of leaf %d differs from the server's proof (%v)", leaf.Index, err)
		}
		tampered := tlog.RecordHash(append([]byte(leaf.Entry), ' '))
		if tlog.CheckRecord(servedProof, tree.N, tree.Hash, leaf.Index, tampered) == nil {
			fail("a tampered entry of leaf %d passed tlog.CheckRecord", leaf.Index)
		}
		checked = append(checked, fmt.Sprintf("%d:%s", leaf.Index, leaf.Kind))
	}

	var consistency struct {
		Proof []string `json:"proof"`
	}
	url := fmt.Sprintf("%s/log/consistency?from=%d&to=%d", base, oldSize, tree.N)
	if err := json.Unmarshal(fetch(url), &consistency); err != nil {
		fail("consistency: %v", err)
	}
	oldRoot, err := tlog.TreeHash(oldSize, reader)
	if err != nil {
		fail("tlog.TreeHash(%d): %v", oldSize, err)
	}
	servedTreeProof := tlog.TreeProof(hashesOf(consistency.Proof))
	if err := tlog.CheckTree(servedTreeProof, tree.N, tree.Hash, oldSize, oldRoot); err != nil {
		fail("tlog.CheckTree from %d to %d: %v", oldSize, tree.N, err)
	}
	ownTreeProof, err := tlog.ProveTree(tree.N, oldSize, reader)
	if err != nil || !equal(ownTreeProof, servedTreeProof) {
		fail("tlog.ProveTree from %d to %d differs from the server's proof (%v)", oldSize, tree.N, err)
	}

	forged := bytes.Replace(served, []byte("\n"+strconv.FormatInt(tree.N, 10)+"\n"), []byte("\n"+strconv.FormatInt(tree.N+1, 10)+"\n"), 1)
	if _, err := note.Open(forged, note.VerifierList(verifier)); err == nil {
		fail("a checkpoint with its size changed still opened")
	}

	json.NewEncoder(os.Stdout).Encode(map[string]interface{}{
		"origin": origin, "size": tree.N, "root": tree.Hash.String(), "leaves": checked,
		"consistency_from": oldSize, "consistency_proof_hashes": len(servedTreeProof),
	})
}

func equal(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
