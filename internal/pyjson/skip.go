package pyjson

// Skip parses the next value without keeping it, checking it as Value
// would (escapes, UTF-8).
func (d *Decoder) Skip() error { return d.skip(0) }

func (d *Decoder) skip(depth int) error {
	if depth > maxDepth {
		return d.SyntaxErrorAt(d.pos, "nesting too deep")
	}
	k, err := d.Peek()
	if err != nil {
		return err
	}
	switch k {
	case KindString:
		_, err = d.strBytes()
	case KindNumber:
		_, _, err = d.numberSpan()
	case KindBool, KindNull:
		_, err = d.literal()
	case KindArray:
		err = d.Array(func(int) error { return d.skip(depth + 1) })
	default:
		err = d.Object(func(string) error { return d.skip(depth + 1) })
	}
	return err
}
