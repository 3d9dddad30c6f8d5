package timeout

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestSlow(t *testing.T) { time.Sleep(10 * time.Second) }
