package build

func F() int { return "not an int" }
