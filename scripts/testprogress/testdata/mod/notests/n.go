package notests

func F() {}
