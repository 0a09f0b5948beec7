package leword

import (
	"encoding/binary"
	"testing"
)

func TestAgreesWithEncodingBinary(t *testing.T) {
	for _, s := range []string{"abcdefgh", "\x00\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", "0123456789abcdef"} {
		if got, want := Uint64(s), binary.LittleEndian.Uint64([]byte(s)); got != want {
			t.Errorf("Uint64(%q) = %#x, want %#x", s, got, want)
		}
		if got, want := Uint32(s), binary.LittleEndian.Uint32([]byte(s)); got != want {
			t.Errorf("Uint32(%q) = %#x, want %#x", s, got, want)
		}
	}
}

func FuzzAgreesWithEncodingBinary(f *testing.F) {
	f.Add("abcdefgh")
	f.Add("\x80\x00\xff\x7f\x01\x02\x03\x04")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) >= 4 && Uint32(s) != binary.LittleEndian.Uint32([]byte(s)) {
			t.Fatalf("Uint32(%q)", s)
		}
		if len(s) >= 8 && Uint64(s) != binary.LittleEndian.Uint64([]byte(s)) {
			t.Fatalf("Uint64(%q)", s)
		}
	})
}
