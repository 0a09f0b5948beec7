package demo

import (
	"bytes"
	"context"
	"testing"
)

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), Options{Out: &out})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Check(); err != nil {
		t.Fatal(err)
	}
}
