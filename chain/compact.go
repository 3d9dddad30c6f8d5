package chain

import (
	"sync"
	"sync/atomic"
)

// The compact forms of the index: binary uuids, codes for names that
// repeat on every line, timestamps as milliseconds.

// ID is a uuid in binary form, as the index holds the uuid and parentUuid
// of an entry written in canonical form (36 characters, lowercase hex).
type ID [16]byte

var hexVal = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = uint8(c - 'a' + 10)
	}
	return t
}()

// ParseID reads a uuid in canonical form; anything else (capitals, other
// lengths, other strings) is not an ID, and String would not give it back.
func ParseID(s string) (ID, bool) { return parseID(s) }

func parseID(s string) (id ID, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	// a digit's value is at most 15, anything else's 0xff: one test of
	// every digit at the end, no branch per byte (the parse and Put were
	// three quarters of a clone's renaming of an id)
	var bad uint8
	for j, p := range idHexAt {
		hi, lo := hexVal[s[p]], hexVal[s[p+1]]
		bad |= hi | lo
		id[j] = hi<<4 | lo
	}
	if bad > 15 {
		return ID{}, false
	}
	return id, true
}

// idHexAt is where the two hex digits of each byte of an ID stand in its
// canonical form.
var idHexAt = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// String is the uuid in canonical form.
func (id ID) String() string {
	var b [36]byte
	id.Put(b[:])
	return string(b[:])
}

// Put writes the uuid in canonical form into b[:36].
func (id ID) Put(b []byte) {
	const hx = "0123456789abcdef"
	_ = b[35]
	for j, p := range idHexAt {
		c := id[j]
		b[p], b[p+1] = hx[c>>4], hx[c&15]
	}
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
}

// nameInX is the code of a name kept in the entry's extra fields, because
// its table is full (a file with tens of thousands of distinct types).
const nameInX = 1<<16 - 1

// nameInX8 is nameInX for the tables whose codes are a byte (types,
// subtypes, roles).
const nameInX8 = 1<<8 - 1

// nameTable gives codes to the names that repeat on every line (types,
// subtypes, roles, session ids), shared by every file of the process.
// Code 0 is "". Reading a name is lock-free; new names are rare.
type nameTable struct {
	mu     sync.Mutex
	full   uint16                            // the code that says the table is full (nameInX or nameInX8)
	codes  atomic.Pointer[map[string]uint16] // replaced, never changed, when a name is added
	n      int
	chunks [256]atomic.Pointer[[256]string]
}

func newNameTable(full uint16, names ...string) *nameTable {
	t := &nameTable{full: full}
	m := map[string]uint16{}
	t.codes.Store(&m)
	t.n = 1
	t.chunks[0].Store(new([256]string))
	for _, s := range names {
		t.code(s)
	}
	return t
}

// code returns the code of s, adding s to the table when new; t.full
// when the table is full.
func (t *nameTable) code(s string) uint16 {
	if s == "" {
		return 0
	}
	if c, ok := (*t.codes.Load())[s]; ok {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := *t.codes.Load()
	if c, ok := old[s]; ok {
		return c
	}
	if t.n >= int(t.full) {
		return t.full
	}
	c := uint16(t.n)
	t.n++
	ch := t.chunks[c>>8].Load()
	if ch == nil {
		ch = new([256]string)
		t.chunks[c>>8].Store(ch)
	}
	s = string(append([]byte(nil), s...)) // s may be a view into a line
	ch[c&255] = s
	// copy on write: the map is small (names repeat), and readers never lock
	m := make(map[string]uint16, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[s] = c
	t.codes.Store(&m)
	return c
}

// name returns the name of code c.
func (t *nameTable) name(c uint16) string {
	if c == 0 {
		return ""
	}
	return t.chunks[c>>8].Load()[c&255]
}

var (
	types    = newNameTable(nameInX8, "user", "assistant", "system", "attachment", "progress", "summary", "last-prompt", "file-history-snapshot", "queue-operation", "custom-title")
	subtypes = newNameTable(nameInX8, "compact_boundary", "local_command", "api_error", "informational")
	roles    = newNameTable(nameInX8, "user", "assistant")
	sessions = newNameTable(nameInX)
)

// parseMillis reads a timestamp of the form 2026-01-05T09:00:00.000Z (what
// the client writes) as milliseconds since 1970; other forms are not read,
// and kept as they are.
func parseMillis(s string) (int64, bool) {
	if len(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return 0, false
	}
	num := func(i, n int) (int64, bool) {
		var v int64
		for k := i; k < i+n; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	se, ok6 := num(17, 2)
	ms, ok7 := num(20, 3)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	return ((days*24+h)*60+mi)*60_000 + se*1000 + ms, true
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian; H. Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// formatMillis writes ms (not negative: parseMillis reads no year before
// 1970) back in the form parseMillis reads.
func formatMillis(ms int64) string {
	days, rem := ms/86_400_000, ms%86_400_000
	// civil from days (Hinnant)
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	var b [24]byte
	put := func(i, n int, v int64) {
		for k := i + n - 1; k >= i; k-- {
			b[k] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, y)
	b[4] = '-'
	put(5, 2, m)
	b[7] = '-'
	put(8, 2, d)
	b[10] = 'T'
	put(11, 2, rem/3_600_000)
	b[13] = ':'
	put(14, 2, rem/60_000%60)
	b[16] = ':'
	put(17, 2, rem/1000%60)
	b[19] = '.'
	put(20, 3, rem%1000)
	b[23] = 'Z'
	return string(b[:])
}
