package encode

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// MaxLessons is the most lessons one PR may yield.
const MaxLessons = 5

// Kinds a lesson may have (the darwin-memo entry kinds an encoder emits).
var lessonKinds = []string{"explicit", "inferred", "entity", "cross_doc", "experience"}

// Schema is the JSON schema of a model's reply. It sticks to the keyword
// subset that OpenAI strict mode, Ollama's grammar converter and
// Anthropic tool input schemas all accept (type, properties, required,
// additionalProperties, enum, items, maxItems); lengths are enforced in Go.
var Schema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["lessons"],` +
	`"properties":{"lessons":{"type":"array","maxItems":5,"items":{"type":"object","additionalProperties":false,` +
	`"required":["question","answer","kind","evidence","paths"],` +
	`"properties":{"question":{"type":"string"},"answer":{"type":"string"},` +
	`"kind":{"type":"string","enum":["explicit","inferred","entity","cross_doc","experience"]},` +
	`"evidence":{"type":"array","items":{"type":"string"}},` +
	`"paths":{"type":"array","items":{"type":"string"}}}}}}}`)

// RawLesson is one lesson as a model (or the deterministic encoder)
// proposes it, before validation.
type RawLesson struct {
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Kind     string   `json:"kind"`
	Evidence []string `json:"evidence"`
	Paths    []string `json:"paths"`
}

// ErrNoJSON is returned by ParseLessons when the text holds no JSON value.
var ErrNoJSON = errors.New("model output holds no JSON object or array")

var (
	thinkBlock   = regexp.MustCompile(`(?is)<think>.*?</think>\s*`)
	openThink    = regexp.MustCompile(`(?is)<think>.*$`)
	strayThinkTo = regexp.MustCompile(`(?is)^.*?</think>\s*`)
)

// stripThink removes <think>...</think> reasoning blocks from model output,
// an unterminated <think> block to the end, and everything up to a stray
// closing </think> (templates that open the block in the prompt).
func stripThink(s string) string {
	s = thinkBlock.ReplaceAllString(s, "")
	s = openThink.ReplaceAllString(s, "")
	s = strayThinkTo.ReplaceAllString(s, "")
	return s
}

// ParseLessons decodes a model reply into raw lessons. It strips think
// blocks, then decodes the first JSON value in the text (code fences and
// prose around it are ignored): either {"lessons":[...]} or a bare array of
// lessons. Unknown fields are an error. Lessons beyond MaxLessons are
// returned (validation rejects them, so the report shows them). An empty
// lessons array is a valid reply; text after the first JSON value is
// ignored.
func ParseLessons(text string) ([]RawLesson, error) {
	dec, first, err := firstJSON(text)
	if err != nil {
		return nil, err
	}
	if first == '[' {
		var ls []RawLesson
		if err := dec.Decode(&ls); err != nil {
			return nil, fmt.Errorf("decode lessons array: %w", err)
		}
		return ls, nil
	}
	var reply struct {
		Lessons *[]RawLesson `json:"lessons"`
	}
	if err := dec.Decode(&reply); err != nil {
		return nil, fmt.Errorf("decode lessons object: %w", err)
	}
	if reply.Lessons == nil {
		return nil, errors.New(`decode lessons object: missing "lessons" array`)
	}
	return *reply.Lessons, nil
}

// firstJSON returns a decoder, unknown fields forbidden, at the first JSON
// object or array of a model reply with its think blocks stripped, and that
// value's first byte.
func firstJSON(text string) (*json.Decoder, byte, error) {
	text = stripThink(text)
	i := strings.IndexAny(text, "{[")
	if i < 0 {
		return nil, 0, ErrNoJSON
	}
	dec := json.NewDecoder(strings.NewReader(text[i:]))
	dec.DisallowUnknownFields()
	return dec, text[i], nil
}
