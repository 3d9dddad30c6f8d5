package build

import "testing"

func TestF(t *testing.T) { F() }
