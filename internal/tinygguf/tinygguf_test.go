package tinygguf

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

// goldenDefaultSHA256 pins the bytes of the default model. If it changes on
// purpose (new hyper-parameters or metadata), update it; if it changes by
// itself (a Go release changed math/rand/v2's PCG or NormFloat64), the model
// is still valid but no longer reproducible across toolchains: say so in
// docs/ollama-e2e.md.
const goldenDefaultSHA256 = "b9574aa0f5ae01c8c9197044735e6ad5aa47326de0eecd916f5265f5ebfec78a"

func writeModel(t *testing.T, cfg Config) (string, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := WriteFile(p, cfg); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

func TestWriteFileDeterministic(t *testing.T) {
	_, a := writeModel(t, DefaultConfig())
	_, b := writeModel(t, DefaultConfig())
	if string(a) != string(b) {
		t.Fatal("two runs with the same Config wrote different bytes")
	}
	sum := sha256.Sum256(a)
	if got := hex.EncodeToString(sum[:]); got != goldenDefaultSHA256 {
		t.Errorf("sha256 = %s, want %s (%d bytes)", got, goldenDefaultSHA256, len(a))
	}

	other := DefaultConfig()
	other.Seed = 2
	_, c := writeModel(t, other)
	if len(c) != len(a) || string(c) == string(a) {
		t.Errorf("seed 2: len %d (want %d), identical bytes = %v (want false)", len(c), len(a), string(c) == string(a))
	}
}

func TestWriteFileDecodes(t *testing.T) {
	cfg := DefaultConfig()
	p, _ := writeModel(t, cfg)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatalf("ggml.Decode: %v", err)
	}
	kv := g.KV()
	tokens, types := Vocabulary()
	checks := []struct {
		name      string
		got, want any
	}{
		{"architecture", kv.Architecture(), "llama"},
		{"context_length", kv.ContextLength(), uint64(cfg.ContextLength)},
		{"block_count", kv.BlockCount(), uint64(cfg.Layers)},
		{"embedding_length", kv.EmbeddingLength(), uint64(cfg.Embedding)},
		{"tokenizer model", kv.String("tokenizer.ggml.model"), "llama"},
		{"token count", len(kv.Strings("tokenizer.ggml.tokens")), len(tokens)},
		{"token types", len(kv.Ints("tokenizer.ggml.token_type")), len(types)},
		{"eos", kv.Uint("tokenizer.ggml.eos_token_id"), uint32(2)},
		{"tensor count", len(g.Tensors().Items()), 3 + 9*cfg.Layers},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	var params uint64
	for _, tn := range g.Tensors().Items() {
		if tn.Kind != uint32(ggml.TensorTypeF32) {
			t.Errorf("tensor %s kind %d, want F32", tn.Name, tn.Kind)
		}
		params += tn.Elements()
	}
	if want := cfg.ParameterCount(); params != want || want != 135840 {
		t.Errorf("decoded %d params, ParameterCount() = %d, want both 135840", params, want)
	}
}

func TestWeightsLookRandom(t *testing.T) {
	// The token embedding must be N(0, 0.02)-ish: a model with all-zero or
	// constant weights would generate one token forever and prove nothing.
	cfg := DefaultConfig()
	var emb []byte
	for _, tn := range cfg.tensors() {
		if tn.Name == "token_embd.weight" {
			emb = tn.WriterTo.(f32Tensor).data
		}
	}
	if len(emb) == 0 {
		t.Fatal("no token_embd.weight tensor")
	}
	n := len(emb) / 4
	var sum, sq float64
	for i := range n {
		v := float64(math.Float32frombits(uint32(emb[4*i]) | uint32(emb[4*i+1])<<8 | uint32(emb[4*i+2])<<16 | uint32(emb[4*i+3])<<24))
		sum += v
		sq += v * v
	}
	mean, std := sum/float64(n), math.Sqrt(sq/float64(n)-(sum/float64(n))*(sum/float64(n)))
	if math.Abs(mean) > 0.002 || std < 0.018 || std > 0.022 {
		t.Errorf("token_embd mean %.5f std %.5f, want about 0 and 0.02", mean, std)
	}
}

func TestVocabulary(t *testing.T) {
	tokens, types := Vocabulary()
	if len(tokens) != 448+2*26*26 || len(types) != len(tokens) {
		t.Fatalf("len(tokens) = %d, len(types) = %d, want %d each", len(tokens), len(types), 448+2*26*26)
	}
	seen := map[string]bool{}
	for _, tok := range tokens {
		if seen[tok] {
			t.Errorf("duplicate token %q", tok)
		}
		seen[tok] = true
	}
	// Everything a JSON schema grammar needs must be a single token.
	for _, c := range strings.Split(`{ } [ ] " : , a z 0 9 ▁a le ▁le zz`, " ") {
		if !seen[c] {
			t.Errorf("token %q missing", c)
		}
	}
	if tokens[3+0x0A] != "<0x0A>" {
		t.Errorf("byte token for newline = %q, want <0x0A>", tokens[3+0x0A])
	}
}

func TestWriteFileRejectsBadConfig(t *testing.T) {
	base := DefaultConfig()
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no layers", func(c *Config) { c.Layers = 0 }, "Layers"},
		{"heads do not divide", func(c *Config) { c.Heads = 3 }, "multiple of Heads"},
		{"odd head size", func(c *Config) { c.Embedding, c.Heads = 12, 4 }, "even"},
		{"no mlp", func(c *Config) { c.FeedForward = 0 }, "FeedForward"},
		{"tiny context", func(c *Config) { c.ContextLength = 8 }, "ContextLength"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.mutate(&cfg)
			dir := t.TempDir()
			err := WriteFile(filepath.Join(dir, "tiny.gguf"), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("WriteFile error = %v, want one mentioning %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left %d files behind after a rejected config", len(entries))
			}
		})
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "missing", "tiny.gguf"), DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("WriteFile into a missing dir: error = %v, want one naming the dir", err)
	}
}
