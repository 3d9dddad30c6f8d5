package chain

// What only the tests call.

// eachField calls fn with every key and raw value of the JSON object obj
// (which must be valid JSON), until fn returns false.
func eachField(obj string, fn func(key, raw string) bool) {
	Fields(obj, 0, func(k string, vs, ve int) bool { return fn(k, obj[vs:ve]) })
}

// eachElem calls fn with every raw element of the JSON array arr.
func eachElem(arr string, fn func(raw string) bool) {
	Elems(arr, 0, func(vs, ve int) bool { return fn(arr[vs:ve]) })
}

// parseEnvelope fills e from the JSON object in line, its content blocks
// in an array of their own: see parseEnvelopeTo.
func parseEnvelope(e *Entry, line []byte) bool {
	var blocks []Block
	ok := parseEnvelopeTo(e, line, &blocks)
	if len(blocks) > 0 && e.nblk != manyBlocks {
		e.blk = &blocks[0]
	}
	return ok
}
