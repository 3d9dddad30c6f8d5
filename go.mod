module github.com/ccsurgeon/ccsurgeon

go 1.26

require (
	github.com/google/uuid v1.6.0
	github.com/mattn/go-runewidth v0.0.19
	github.com/sergi/go-diff v1.4.0
	github.com/stretchr/testify v1.12.1
	github.com/tidwall/gjson v1.20.0
	github.com/tidwall/sjson v1.2.5
	github.com/urfave/cli/v3 v3.14.0
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sync v0.18.0
	golang.org/x/sys v0.42.0
	golang.org/x/term v0.41.0
)

require (
	github.com/clipperhouse/uax29/v2 v2.2.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
