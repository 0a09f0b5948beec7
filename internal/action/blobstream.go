package action

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"io"
)

// errBlobShape says a blob answer is not in the shape streamBlob reads (GitHub's: a flat object
// whose members are strings without escapes or numbers, the content base64 broken by escaped
// line breaks); the caller reads it again the general way.
var errBlobShape = errors.New("blob answer not in GitHub's usual shape")

// streamBlob decodes the content of a blob object (GitHub's answer to GET /git/blobs/{sha}) as
// the answer arrives, into a buffer of size bytes (the size the contents API gave; 0 when not
// known): a large store is then held once, not also as its base64. It returns errBlobShape for
// an answer it does not expect, a base64 error included; nothing it returns is partial.
func streamBlob(body io.Reader, size int) ([]byte, error) {
	br := bufio.NewReaderSize(body, 256<<10)
	ws := func() (byte, error) {
		for {
			c, err := br.ReadByte()
			if err != nil {
				return 0, err
			}
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return c, nil
			}
		}
	}
	// plain reads the rest of a string without escapes (the opening quote read).
	plain := func() (string, error) {
		s, err := br.ReadSlice('"')
		if err != nil || bytes.IndexByte(s, '\\') >= 0 {
			return "", errBlobShape
		}
		return string(s[:len(s)-1]), nil
	}
	var out []byte
	var haveContent bool
	var encoding string
	c, err := ws()
	if err != nil || c != '{' {
		return nil, errBlobShape
	}
	for {
		if c, err = ws(); err != nil || c != '"' {
			return nil, errBlobShape
		}
		key, err := plain()
		if err != nil {
			return nil, err
		}
		if c, err = ws(); err != nil || c != ':' {
			return nil, errBlobShape
		}
		if c, err = ws(); err != nil {
			return nil, errBlobShape
		}
		switch {
		case c == '"' && key == "content" && !haveContent:
			if out, err = streamBase64(br, size); err != nil {
				return nil, err
			}
			haveContent = true
		case c == '"':
			v, err := plain()
			if err != nil {
				return nil, err
			}
			if key == "encoding" {
				encoding = v
			}
		case c >= '0' && c <= '9' || c == '-' || c >= 'a' && c <= 'z':
			for { // a number, true, false or null
				c, err = br.ReadByte()
				if err != nil {
					return nil, errBlobShape
				}
				if !(c >= '0' && c <= '9' || c == '-' || c == '.' || c == '+' || c >= 'a' && c <= 'z' || c == 'E') {
					break
				}
			}
			if err := br.UnreadByte(); err != nil {
				return nil, errBlobShape
			}
		default:
			return nil, errBlobShape
		}
		if c, err = ws(); err != nil {
			return nil, errBlobShape
		}
		if c == '}' {
			break
		}
		if c != ',' {
			return nil, errBlobShape
		}
	}
	if _, err := ws(); err != io.EOF || !haveContent || encoding != "base64" {
		return nil, errBlobShape
	}
	return out, nil
}

// streamBase64 decodes a JSON string of base64 broken by escaped line breaks (the opening quote
// read) up to its closing quote.
func streamBase64(br *bufio.Reader, size int) ([]byte, error) {
	out := make([]byte, 0, size+3) // the last group decodes into its padding's room
	var carry [4]byte              // characters of an incomplete group
	nc := 0
	escape := false // the previous chunk ended in a backslash
	var clean []byte
	for {
		chunk, err := br.ReadSlice('"')
		if err != nil && err != bufio.ErrBufferFull {
			return nil, errBlobShape
		}
		done := err == nil
		if done {
			chunk = chunk[:len(chunk)-1]
		}
		// Drop the escaped line breaks; any other escape is not GitHub's shape.
		clean = append(clean[:0], carry[:nc]...)
		nc = 0
		for len(chunk) > 0 {
			if escape {
				if chunk[0] != 'n' {
					return nil, errBlobShape
				}
				chunk, escape = chunk[1:], false
				continue
			}
			i := bytes.IndexByte(chunk, '\\')
			if i < 0 {
				clean = append(clean, chunk...)
				break
			}
			clean = append(clean, chunk[:i]...)
			chunk, escape = chunk[i+1:], true
		}
		if done && escape {
			return nil, errBlobShape // the quote was escaped
		}
		whole := len(clean) / 4 * 4
		if done {
			whole = len(clean)
		}
		nc = copy(carry[:], clean[whole:])
		if whole > 0 {
			if need := len(out) + base64.StdEncoding.DecodedLen(whole); need > cap(out) {
				out = append(out[:cap(out)], make([]byte, need-cap(out))...)[:len(out)]
			}
			n, err := base64.StdEncoding.Decode(out[len(out):cap(out)], clean[:whole])
			if err != nil {
				return nil, errBlobShape
			}
			out = out[:len(out)+n]
			if !done && n < whole/4*3 { // padding before the end
				return nil, errBlobShape
			}
		}
		if done {
			return out, nil
		}
	}
}
