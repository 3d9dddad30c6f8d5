package backup

import (
	"os"
	"testing"
)

// envHelper makes the test binary a child process of a crash test instead
// of running tests: "apply" (TestFaultInjection) or "move" (TestMoveCrash).
// The child works on the files the parent names and is killed at a step.
const envHelper = "CCSURGEON_BACKUP_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(envHelper) {
	case "apply":
		applyHelper() // exits
	case "move":
		moveHelper() // exits
	}
	os.Exit(m.Run())
}
