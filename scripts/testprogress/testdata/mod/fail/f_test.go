package fail

import "testing"

func TestOK(t *testing.T) {}

func TestFails(t *testing.T) { t.Errorf("want 1, got 2") }

func TestSub(t *testing.T) {
	t.Run("good", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Fatal("boom") })
}
