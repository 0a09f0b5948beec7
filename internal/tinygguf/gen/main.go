// Command gen writes the tiny random-weight GGUF model used by the real-Ollama
// end-to-end test:
//
//	go run ./internal/tinygguf/gen -o DIR
//
// It writes DIR/tiny.gguf (byte-identical on every run for the same flags)
// and prints its path, size and sha256 digest.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/darwin-memo/darwin-memo-action/internal/tinygguf"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tinygguf:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	cfg := tinygguf.DefaultConfig()
	fs := flag.NewFlagSet("tinygguf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output directory (created if missing); the model is written to DIR/tiny.gguf")
	ctx := fs.Uint("ctx", uint(cfg.ContextLength), "trained context length (llama.context_length)")
	seed := fs.Uint64("seed", cfg.Seed, "seed of the random weights")
	fs.IntVar(&cfg.Layers, "layers", cfg.Layers, "transformer blocks")
	fs.IntVar(&cfg.Embedding, "embd", cfg.Embedding, "hidden size (a multiple of -heads)")
	fs.IntVar(&cfg.Heads, "heads", cfg.Heads, "attention heads")
	fs.IntVar(&cfg.FeedForward, "ffn", cfg.FeedForward, "MLP hidden size")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("usage: gen -o DIR [-ctx N] [-seed N] [-layers N] [-embd N] [-heads N] [-ffn N]")
	}
	cfg.ContextLength, cfg.Seed = uint32(*ctx), *seed
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	path := filepath.Join(*out, "tiny.gguf")
	if err := tinygguf.WriteFile(path, cfg); err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	fmt.Fprintf(stdout, "%s %d bytes %d params sha256:%s\n", path, len(b), cfg.ParameterCount(), hex.EncodeToString(sum[:]))
	return nil
}
