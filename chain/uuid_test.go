package chain

import (
	"testing"

	"github.com/google/uuid"
)

// TestIsUUIDIsWhatUUIDParses: chain.IsUUID, the one home of the check,
// says yes exactly where github.com/google/uuid parses a 36-character
// string, on the forms ids take and the near misses around them.
func TestIsUUIDIsWhatUUIDParses(t *testing.T) {
	for _, s := range []string{
		"3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f60", "3F2A9C1E-0B1D-4C2E-9F3A-1B2C3D4E5F60",
		"3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f6", "3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f601",
		"3f2a9c1e_0b1d-4c2e-9f3a-1b2c3d4e5f60", "3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5fg0",
		"{3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f6}", "urn:uuid:3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f60",
		"3f2a9c1e0b1d4c2e9f3a1b2c3d4e5f60", "", "------------------------------------",
		"3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f6 ", "3f2a9c1e--b1d-4c2e-9f3a-1b2c3d4e5f60",
	} {
		_, err := uuid.Parse(s)
		want := err == nil && len(s) == 36
		if got := IsUUID(s); got != want {
			t.Errorf("IsUUID(%q) = %v, uuid.Parse says %v", s, got, want)
		}
		if got := IsUUID([]byte(s)); got != want {
			t.Errorf("IsUUID([]byte(%q)) = %v, uuid.Parse says %v", s, got, want)
		}
	}
}

// TestIsUUIDEveryByteEverywhere: every byte value at every place of a
// uuid, in both cases: IsUUID agrees with uuid.Parse on each.
func TestIsUUIDEveryByteEverywhere(t *testing.T) {
	for _, base := range []string{"3f2a9c1e-0b1d-4c2e-9f3a-1b2c3d4e5f60", "3F2A9C1E-0B1D-4C2E-9F3A-1B2C3D4E5F60"} {
		for i := 0; i < 36; i++ {
			for c := 0; c < 256; c++ {
				b := []byte(base)
				b[i] = byte(c)
				_, err := uuid.ParseBytes(b)
				if got := IsUUID(b); got != (err == nil) {
					t.Fatalf("IsUUID(%q) = %v, uuid.Parse says %v", b, got, err == nil)
				}
			}
		}
	}
}
