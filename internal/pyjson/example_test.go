package pyjson_test

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Parse reads what Python's json.loads reads, and Compact writes it back as json.dumps does:
// key order and number spelling kept, non-ASCII escaped, a repeated key's last value kept in
// its first place.
func ExampleParse() {
	v, err := pyjson.Parse("doc.json", []byte(`{"b": [1, 2.50, 1e400, NaN], "a": "é\ud800", "b": -0}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(pyjson.Compact(v)))
	// Output:
	// {"b": 0, "a": "\u00e9\ud800"}
}

// A Decoder streams a document without building values, and names the JSON path of what is
// not shaped as expected.
func ExampleDecoder_Object() {
	d := pyjson.NewDecoder("store.json", []byte(`{"config": {"max_energy": 5.0, "upkeep": "low"}}`))
	err := d.Object(func(key string) error {
		return d.Object(func(key string) error {
			f, err := d.Float()
			fmt.Println(key, f)
			return err
		})
	})
	fmt.Println(err)
	// Output:
	// max_energy 5
	// upkeep 0
	// store.json: $.config.upkeep: expected a number, got string
}

// A Writer writes json.dumps(indent=2) piece by piece; values carried whole go through Value.
func ExampleWriter() {
	energy := 0.1
	energy += 0.2
	w := pyjson.NewWriter(nil, 0)
	w.Open('{')
	w.Key("energy")
	w.Float(energy)
	w.Field("sources")
	w.Value(pyjson.Strings(nil))
	w.Field("extra")
	w.Value(pyjson.Object(pyjson.Pair("n", pyjson.Int(3)), pyjson.Pair("ok", pyjson.Null())))
	w.Close('}')
	fmt.Println(string(w.Bytes()))
	// Output:
	// {
	//   "energy": 0.30000000000000004,
	//   "sources": [],
	//   "extra": {
	//     "n": 3,
	//     "ok": null
	//   }
	// }
}
