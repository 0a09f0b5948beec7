package encode

import (
	"bytes"
	"encoding/json"
	"errors"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// marshalLessons encodes raw lessons as a reply the way a model would.
func marshalLessons(ls []RawLesson) []byte {
	if ls == nil {
		ls = []RawLesson{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Lessons []RawLesson `json:"lessons"`
	}{ls})
	return bytes.TrimSpace(buf.Bytes())
}
