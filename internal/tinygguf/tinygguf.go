// Package tinygguf writes a tiny llama-architecture GGUF model with random
// weights, using ollama's own Go GGUF writer (github.com/ollama/ollama/fs/ggml).
//
// The model exists only so that end-to-end tests can drive a REAL Ollama
// server offline: it loads, tokenises and generates (gibberish) in a few
// milliseconds per token on a CPU. The output is byte-identical for the same
// Config, so it is regenerated on demand and never committed.
package tinygguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// Config holds the model's hyper-parameters and the seed of its weights.
type Config struct {
	// Seed selects the random weights; the same seed gives the same bytes.
	Seed uint64
	// ContextLength is the trained context (llama.context_length); Ollama caps
	// num_ctx to it, so it must hold a whole encoding prompt.
	ContextLength uint32
	// Layers is the number of transformer blocks.
	Layers int
	// Embedding is the hidden size; it must be a multiple of Heads.
	Embedding int
	// Heads is the number of attention heads (and of key/value heads).
	Heads int
	// FeedForward is the hidden size of each block's MLP.
	FeedForward int
}

// DefaultConfig is the configuration the end-to-end test uses: 2 layers,
// hidden size 32, 2 heads, MLP 64, context 8192 (about 580 KB on disk).
// The sizes are as small as a real CPU runner handles well: an encoding
// prompt of about 2,400 tokens is evaluated in about a second on 2 cores,
// since ollama's cgo build of ggml has no AVX code paths.
func DefaultConfig() Config {
	return Config{Seed: 1, ContextLength: 8192, Layers: 2, Embedding: 32, Heads: 2, FeedForward: 64}
}

func (c Config) validate() error {
	switch {
	case c.Layers < 1:
		return fmt.Errorf("tinygguf: Layers = %d, want >= 1", c.Layers)
	case c.Heads < 1 || c.Embedding < c.Heads || c.Embedding%c.Heads != 0:
		return fmt.Errorf("tinygguf: Embedding = %d must be a positive multiple of Heads = %d", c.Embedding, c.Heads)
	case (c.Embedding/c.Heads)%2 != 0:
		return fmt.Errorf("tinygguf: head size %d must be even (rotary embeddings)", c.Embedding/c.Heads)
	case c.FeedForward < 1:
		return fmt.Errorf("tinygguf: FeedForward = %d, want >= 1", c.FeedForward)
	case c.ContextLength < 16:
		return fmt.Errorf("tinygguf: ContextLength = %d, want >= 16", c.ContextLength)
	}
	return nil
}

// Vocabulary returns the model's SentencePiece-style vocabulary: <unk>, <s>,
// </s>, the 256 byte-fallback tokens <0x00>..<0xFF>, "▁" (the SentencePiece
// space), every printable non-space ASCII character, each of those prefixed
// by "▁", and every pair of lower-case letters, bare and prefixed by "▁".
// With byte fallback, any text can be tokenised.
func Vocabulary() (tokens []string, types []int32) {
	const (
		normal  = 1
		unknown = 2
		control = 3
		byteTok = 6
	)
	tokens = append(tokens, "<unk>", "<s>", "</s>")
	types = append(types, unknown, control, control)
	for b := 0; b < 256; b++ {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, byteTok)
	}
	tokens = append(tokens, "▁")
	types = append(types, normal)
	for c := byte('!'); c <= '~'; c++ {
		tokens = append(tokens, string(c))
		types = append(types, normal)
	}
	for c := byte('!'); c <= '~'; c++ {
		tokens = append(tokens, "▁"+string(c))
		types = append(types, normal)
	}
	// Lower-case letter pairs, bare and after "▁", halve the number of
	// tokens of English text; attention cost grows with the square of it.
	for _, prefix := range []string{"", "▁"} {
		for a := byte('a'); a <= 'z'; a++ {
			for b := byte('a'); b <= 'z'; b++ {
				tokens = append(tokens, prefix+string([]byte{a, b}))
				types = append(types, normal)
			}
		}
	}
	return tokens, types
}

// kv returns the GGUF metadata for cfg.
func (c Config) kv() ggml.KV {
	tokens, types := Vocabulary()
	scores := make([]float32, len(tokens))
	for i := range scores {
		scores[i] = -float32(i)
	}
	return ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "darwin-memo-tiny",
		"general.file_type":                      uint32(0), // all F32
		"general.alignment":                      uint32(32),
		"llama.context_length":                   c.ContextLength,
		"llama.embedding_length":                 uint32(c.Embedding),
		"llama.block_count":                      uint32(c.Layers),
		"llama.feed_forward_length":              uint32(c.FeedForward),
		"llama.attention.head_count":             uint32(c.Heads),
		"llama.attention.head_count_kv":          uint32(c.Heads),
		"llama.rope.dimension_count":             uint32(c.Embedding / c.Heads),
		"llama.rope.freq_base":                   float32(10000),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.vocab_size":                       uint32(len(tokens)),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.scores":                  scores,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.unknown_token_id":        uint32(0),
		"tokenizer.ggml.bos_token_id":            uint32(1),
		"tokenizer.ggml.eos_token_id":            uint32(2),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
}

// f32Tensor is an F32 tensor whose data is materialised before writing, so
// that the bytes do not depend on the order in which ggml.WriteGGUF's
// goroutines call WriteTo.
type f32Tensor struct{ data []byte }

func (t f32Tensor) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(t.data)
	return int64(n), err
}

// tensors returns the model's tensors (shapes in ggml order: [in, out]).
// Norm weights are 1; all others are N(0, 0.02) from one PCG stream seeded
// with cfg.Seed, drawn in the fixed order of this list.
func (c Config) tensors() []*ggml.Tensor {
	rng := rand.New(rand.NewPCG(c.Seed, 0x7469_6e79_6767_7566)) // "tinygguf"
	tokens, _ := Vocabulary()
	vocab := uint64(len(tokens))
	e, f := uint64(c.Embedding), uint64(c.FeedForward)

	var ts []*ggml.Tensor
	add := func(name string, norm bool, shape ...uint64) {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		buf := make([]byte, 4*n)
		for i := range n {
			v := float32(1)
			if !norm {
				v = float32(rng.NormFloat64() * 0.02)
			}
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		ts = append(ts, &ggml.Tensor{
			Name:     name,
			Kind:     uint32(ggml.TensorTypeF32),
			Shape:    shape,
			WriterTo: f32Tensor{data: buf},
		})
	}
	add("token_embd.weight", false, e, vocab)
	add("output_norm.weight", true, e)
	add("output.weight", false, e, vocab)
	for l := range c.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", true, e)
		add(p+"attn_q.weight", false, e, e)
		add(p+"attn_k.weight", false, e, e)
		add(p+"attn_v.weight", false, e, e)
		add(p+"attn_output.weight", false, e, e)
		add(p+"ffn_norm.weight", true, e)
		add(p+"ffn_gate.weight", false, e, f)
		add(p+"ffn_up.weight", false, e, f)
		add(p+"ffn_down.weight", false, f, e)
	}
	return ts
}

// ParameterCount returns the number of weights in the model described by cfg.
func (c Config) ParameterCount() uint64 {
	var n uint64
	for _, t := range c.tensors() {
		n += t.Elements()
	}
	return n
}

// WriteFile writes the model to path atomically (a temporary file in the same
// directory, then a rename), so a reader never sees a partial model and a
// rerun simply replaces the file with identical bytes.
func WriteFile(path string, cfg Config) (err error) {
	if err := cfg.validate(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tinygguf-*")
	if err != nil {
		return fmt.Errorf("tinygguf: create temporary file in %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := ggml.WriteGGUF(tmp, cfg.kv(), cfg.tensors()); err != nil {
		return fmt.Errorf("tinygguf: write GGUF %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("tinygguf: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("tinygguf: close %s: %w", tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("tinygguf: chmod %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tinygguf: rename to %s: %w", path, err)
	}
	return nil
}
