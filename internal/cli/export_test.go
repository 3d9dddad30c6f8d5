package cli

import "io"

// reportError prints err and its hint as ccsurgeon with the default
// config dir does, and returns the exit code.
func reportError(stderr io.Writer, err error) int { return reportErrorAs(stderr, err, "ccsurgeon") }
