package lessons

type index struct{}
