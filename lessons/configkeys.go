package lessons

import (
	"fmt"
	"slices"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// configField is one ledger.config key: its name and the Config field it reads into and is
// written from. ext marks this project's economics keys (economics.go), which darwin-memo
// drops on load: they are written only when set.
type configField struct {
	key string
	ext bool
	// field returns a pointer to the key's Config field: *float64, *int, *bool, **float64
	// (a number or null) or *string.
	field func(*Config) any
	// allowed lists the values a string field may take.
	allowed []string
}

// configFields are the ledger.config keys in darwin-memo's field order, then the extension
// keys: the one list reading (configFromValue) and writing (configValue) follow.
var configFields = []configField{
	{key: "credit_gain", field: func(c *Config) any { return &c.CreditGain }},
	{key: "supporting_share", field: func(c *Config) any { return &c.SupportingShare }},
	{key: "consolidate_every", field: func(c *Config) any { return &c.ConsolidateEvery }},
	{key: "merge_threshold", field: func(c *Config) any { return &c.MergeThreshold }},
	{key: "write_experience", field: func(c *Config) any { return &c.WriteExperience }},
	{key: "experience_min_delta", field: func(c *Config) any { return &c.ExperienceMinDelta }},
	{key: "experience_dedup_threshold", field: func(c *Config) any { return &c.ExperienceDedupThreshold }},
	{key: "resource_scale", field: func(c *Config) any { return &c.ResourceScale }},
	{key: "admission_window", field: func(c *Config) any { return &c.AdmissionWindow }},
	{key: "upkeep_requires_settlement", field: func(c *Config) any { return &c.UpkeepRequiresSettlement }},
	{key: "merge_source_policy", field: func(c *Config) any { return &c.MergeSourcePolicy }, allowed: []string{"off", "shared", "identical"}},
	{key: "conflict_threshold", field: func(c *Config) any { return &c.ConflictThreshold }},
	{key: "retrieval_upkeep", ext: true, field: func(c *Config) any { return &c.RetrievalUpkeep }},
	{key: "idle_upkeep_scale", ext: true, field: func(c *Config) any { return &c.IdleUpkeepScale }},
	{key: "harm_gain", ext: true, field: func(c *Config) any { return &c.HarmGain }},
	{key: "tenure_after", ext: true, field: func(c *Config) any { return &c.TenureAfter }},
	{key: "tenure_upkeep_scale", ext: true, field: func(c *Config) any { return &c.TenureUpkeepScale }},
	{key: "bundle_split", ext: true, field: func(c *Config) any { return &c.BundleSplit }},
	{key: "segregate_losses", ext: true, field: func(c *Config) any { return &c.SegregateLosses }},
	{key: "stale_upkeep", ext: true, field: func(c *Config) any { return &c.StaleUpkeep }},
}

// configFieldOf returns key's row, nil for a key that is not a setting.
func configFieldOf(key string) *configField {
	for i := range configFields {
		if configFields[i].key == key {
			return &configFields[i]
		}
	}
	return nil
}

// set reads x into f's field of c; false, with the field as it was, for a value of the wrong
// type: a number for a float (an integer too), an integer for an int, a bool, a number or null,
// one of the allowed strings.
func (f *configField) set(c *Config, x pyjson.Value) bool {
	switch p := f.field(c).(type) {
	case *float64:
		v, ok := x.Num()
		if ok {
			*p = v
		}
		return ok
	case *int:
		v, ok := x.Int()
		if ok {
			*p = v
		}
		return ok
	case *bool:
		if x.Kind() != pyjson.KindBool {
			return false
		}
		*p = x.Bool()
	case **float64:
		switch x.Kind() {
		case pyjson.KindNull:
			*p = nil
		case pyjson.KindNumber:
			v, _ := x.Num()
			*p = &v
		default:
			return false
		}
	case *string:
		if x.Kind() != pyjson.KindString || !slices.Contains(f.allowed, x.Str()) {
			return false
		}
		*p = x.Str()
	default:
		panic(fmt.Sprintf("config key %s: field of type %T", f.key, p))
	}
	return true
}

// value renders f's field of c.
func (f *configField) value(c Config) pyjson.Value {
	switch p := f.field(&c).(type) {
	case *float64:
		return pyjson.Float(*p)
	case *int:
		return pyjson.Int(*p)
	case *bool:
		return pyjson.Bool(*p)
	case **float64:
		if *p == nil {
			return pyjson.Null()
		}
		return pyjson.Float(**p)
	case *string:
		return pyjson.String(*p)
	default:
		panic(fmt.Sprintf("config key %s: field of type %T", f.key, p))
	}
}

// isSet reports whether an extension key differs from its zero value, darwin-memo's rule.
func (f *configField) isSet(c Config) bool {
	switch p := f.field(&c).(type) {
	case *float64:
		return *p != 0
	case *int:
		return *p != 0
	case *bool:
		return *p
	case **float64:
		return *p != nil
	}
	return false // no extension key is a string
}
