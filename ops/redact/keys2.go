package redact

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"math/big"
	"regexp"
	"strings"
	"sync"
)

// Key material, second round (issue 31): private keys written without
// armor, by their own encodings. A DER private key in base64 of any size
// (short-form lengths: Ed25519 and EC keys), Java keystores in base64,
// and the keys of cryptocurrency wallets (hex, WIF, BIP-32 extended
// private keys, Solana keypairs, BIP-39 seed phrases).
func keyRules2() []*Rule {
	return []*Rule{
		// DER private keys whose length takes one byte (Ed25519 PKCS#8:
		// MC4CAQAw…, EC SEC1: MHcCAQEE…) or two (30 81 LL: P-256 PKCS#8
		// MIGHAgEA…); the MII… ones (30 82 LL LL) are private-key-der's
		// (anchored on the version's base64 and what follows it: AQAw,
		// AQEw, AQEE 4 characters in; gEAM, gEBB 5 in — "age" would let
		// every message and page through the prefilter)
		{ID: "private-key-der", Anchors: []string{"AQAw", "AQEw", "AQEE", "gEAM", "gEBB"}, Priority: prioSpecific,
			find: findShortDER, emits: []string{"private-key-der"}},
		// .NET's RSA key XML (RSA.ToXmlString(true)): the private members
		// of an <RSAKeyValue>
		{ID: "private-key", Anchors: []string{"<RSAKeyValue>"}, Priority: prioSpecific,
			find: findRSAKeyValue, emits: []string{"private-key"}},
		// a keystore or PKCS#12 file in base64 under its name (a CI
		// variable: ANDROID_KEYSTORE_BASE64, SIGNING_CERT_P12, "pfx"):
		// binary, 150 bytes at least, whatever its first bytes
		{ID: "java-keystore", Anchors: []string{"eystore", "p12", "pfx", "jks"}, Fold: true, Priority: prioContext,
			find: findNamedKeystores, emits: []string{"java-keystore", "private-key-pkcs12"}},
		// Java keystores in base64: JKS (magic FEEDFEED) and JCEKS
		// (CECECECE), version 1 or 2; they hold private keys
		tok("java-keystore", `(?:/u3\+7Q|zs7Ozg)AAAA[EI][A-Za-z0-9+/]{80,}={0,2}`, "/u3+7Q", "zs7Ozg").after(20000).bound(isB64).check(nil),
		// BIP-32 extended private keys (xprv, tprv, and BIP-49/84's yprv,
		// zprv, uprv, vprv): 111 base58 characters
		tok("crypto-wallet-key", `[xtyzuv]prv[1-9A-HJ-NP-Za-km-z]{100,112}`, "xprv", "tprv", "yprv", "zprv", "uprv", "vprv").prio(prioSpecific).check(nil),
		// OpenVPN's static key (openvpn --genkey: tls-auth, tls-crypt,
		// secret): the hex lines after its BEGIN line, also with \n escapes
		{ID: "private-key", Anchors: []string{"-----BEGIN OpenVPN Static key"}, After: 1200, Priority: prioSpecific,
			Re: regexp.MustCompile(`-----BEGIN OpenVPN Static key V\d-----(?:\r?\n|(?:\\r)?\\n)(?P<s>(?:[0-9a-fA-F]{16,}(?:\r?\n|(?:\\r)?\\n))*[0-9a-fA-F]{16,})`)},
		// the SSH2 private key of ssh.com's tools (RFC 4716's framing,
		// "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"): the base64 lines
		// after its Header: value lines
		{ID: "private-key", Anchors: []string{"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", "---- BEGIN SSH2 PRIVATE KEY ----"}, After: 8000, Priority: prioSpecific,
			Re: regexp.MustCompile(`---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----(?:\r?\n|(?:\\r)?\\n)(?:[A-Za-z][\w-]*: [^\n\\]*(?:\r?\n|(?:\\r)?\\n))*(?P<s>(?:[A-Za-z0-9+/=]{16,}(?:\r?\n|(?:\\r)?\\n))*[A-Za-z0-9+/=]{16,})`)},
		// a Tendermint/CometBFT priv_validator_key.json's private key
		{ID: "private-key", Anchors: []string{"PrivKeyEd25519", "PrivKeySecp256k1"}, After: 200, Priority: prioSpecific,
			Re:       regexp.MustCompile(`PrivKey(?:Ed25519|Secp256k1)\\?"[ \t]*,[ \t]*\\?"value\\?"[ \t]*:[ \t]*\\?"(?P<s>[A-Za-z0-9+/]{40,}={0,2})`),
			Boundary: isB64Word},
		// a Nostr private key (NIP-19: bech32 of 32 bytes after nsec1)
		// (anchored on "ec1": "nse" is in every response and license)
		{ID: "nostr-private-key", Anchors: []string{"ec1"}, Before: 2, After: 60, Priority: prioSpecific,
			Re: regexp.MustCompile(`nsec1[02-9ac-hj-np-z]{58}`), Boundary: isAlnum},
		// a wallet's private key or seed phrase after a name or call that
		// takes one: hex (Ethereum, 0x + 64), WIF (5…, K…, L…, c…, 9…),
		// Solana's base58 or JSON keypair, BIP-39 words
		{ID: "crypto-wallet-key", Anchors: walletAnchors, Fold: true, Priority: prioContext,
			find: findWalletKeys, emits: []string{"crypto-wallet-key", "crypto-seed-phrase"}},
	}
}

// findShortDER: at a hit of the INTEGER version's base64, the base64 run
// that begins 4 characters before it decodes to SEQUENCE { INTEGER 0|1,
// SEQUENCE (PKCS#8's algorithm) | OCTET STRING (SEC1's key) } of exactly
// the length its header says: a private key, not a certificate or a
// public key (whose SEQUENCE starts with another SEQUENCE), under a name
// that names a key (namedAsKey).
func findShortDER(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		st := int(h.pos) - 4
		if text[h.pos] == 'g' {
			st-- // AgEA, AgEB: the anchor starts at its g
		}
		if st < 0 || text[st] != 'M' || st > 0 && (isB64(text[st-1]) || text[st-1] == '-' || text[st-1] == '_') {
			continue
		}
		e := st
		for e < len(text) && e-st < 4000 && isB64(text[e]) {
			e++
		}
		for e < len(text) && text[e] == '=' && e-st < 4003 {
			e++
		}
		if e-st < 64 || e < len(text) && (isB64(text[e]) || text[e] == '-' || text[e] == '_') {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(text[st:e])
		if err == nil && isDERPrivateKey(b) && namedAsKey(linePrefix(text, st)) {
			emit(st, e, "private-key-der")
		}
	}
}

// namedAsKey: the line before a bare DER key names a key or a secret
// (ED25519_KEY=, "signingKey": ", private_key: , APPLE_P8=): a key under
// another armor's label (-----BEGIN TESTING KEY----- on the line above)
// or in a list of test vectors is not reported.
func namedAsKey(pre string) bool {
	if hasSecretNoun(pre) {
		return true
	}
	l := strings.ToLower(pre)
	return strings.Contains(l, "priv") || strings.Contains(l, "p8") || strings.Contains(l, "pkcs8")
}

// isDERPrivateKey: b is one DER SEQUENCE, exactly as long as its header
// says, whose first element is INTEGER 0 or 1 and whose second is a
// SEQUENCE (PKCS#8's algorithm), an OCTET STRING (SEC1's key) or, in a
// long one, an INTEGER (PKCS#1's modulus). A certificate or a public key
// starts SEQUENCE { SEQUENCE }.
func isDERPrivateKey(b []byte) bool {
	if len(b) < 40 || b[0] != 0x30 {
		return false
	}
	n, i := int(b[1]), 2
	switch {
	case b[1] == 0x81:
		n, i = int(b[2]), 3
	case b[1] == 0x82:
		n, i = int(b[2])<<8|int(b[3]), 4
	case b[1] >= 0x80:
		return false
	}
	if i+n != len(b) || b[i] != 0x02 || b[i+1] != 0x01 || b[i+2] > 1 {
		return false
	}
	next := b[i+3]
	return next == 0x30 || next == 0x04 || next == 0x02 && i == 4
}

// walletAnchors name a wallet's private key or seed phrase, or a call
// given one.
// (keypair by "eypair" and from_key( by "m_key(": "key" and "fro" are
// trigrams of every other line, and the prefilter lets each through)
var walletAnchors = []string{"wif", "privkey", "priv_key", "private", "wallet", "eypair", "signer", "mnemonic",
	"seed", "phrase", "accounts", "m_key(", "id.json"}

var (
	reHexKey    = regexp.MustCompile(`^(?:0x)?[0-9a-fA-F]{64}$`)
	reBase58Run = regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]+$`)
)

// findWalletKeys: within the line after the anchor (a newline more for a
// YAML value, 200 bytes at most), the first value that is a wallet's
// key: a quoted or bare token, a JSON array of 64 bytes, or a run of
// BIP-39 words. A base58check WIF with a valid checksum counts anywhere
// on the line; the other forms only after separators, quotes and an
// opening call or list (NAME=, NAME: , "name": ", Wallet(", [").
func findWalletKeys(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos + h.alen)
		a := text[h.pos:p]
		if len(a) == 7 && strings.EqualFold(a, "private") && !privateNamesAKey(text, p) {
			continue // private in prose, a PEM label, a private repo
		}
		hi := min(len(text), p+200)
		seed := strings.EqualFold(a, "mnemonic") || strings.EqualFold(a, "seed") || strings.EqualFold(a, "phrase")
		if n := strings.IndexByte(text[p:hi], '\n'); n >= 0 {
			if rest := strings.TrimSpace(text[p : p+n]); rest == ":" || rest == "" {
				// the value on the next line (YAML, a file's content)
				if n2 := strings.IndexByte(text[p+n+1:hi], '\n'); n2 >= 0 {
					hi = p + n + 1 + n2
				}
			} else {
				hi = p + n
			}
		}
		// the rest of the name, then separators
		i := p
		for i < hi && (isTokenByte(text[i]) || text[i] == '.') {
			i++
		}
		if !seed && nameNamesNoKey(text[h.pos:i]) {
			continue // private_key_hash, walletAddress, privateKeyPath: not the key
		}
		gapOK := true
		j := i
		for j < hi && strings.IndexByte(" \t\"'`:=([{,>\n", text[j]) >= 0 {
			j++
		}
		// one wrapping call (bs58.decode(, Buffer.from(, hexToBytes()
		if k := j; k < hi && isAlpha(text[k]) {
			for k < hi && (isTokenByte(text[k]) || text[k] == '.') {
				k++
			}
			if k < hi && text[k] == '(' && k-j <= 24 {
				for j = k; j < hi && strings.IndexByte(" \t\"'`([", text[j]) >= 0; j++ {
				}
			}
		}
		if j-i > 48 {
			gapOK = false
		}
		if seed {
			if s, e, ok := seedPhraseAt(text, j, hi); ok && gapOK {
				emit(s, e, "crypto-seed-phrase")
			}
			continue
		}
		if j < hi && text[j] == '[' || j > i && text[j-1] == '[' {
			if j < hi && text[j] == '[' {
				j++
			}
			if e, ok := byteArray64(text, j); ok && gapOK {
				emit(j, e, "crypto-wallet-key")
				continue
			}
		}
		// the tokens of the line: the first after the separators, or a
		// checksummed WIF anywhere
		for k := j; k < hi; {
			for k < hi && !isAlnum(text[k]) {
				k++
			}
			e := k
			for e < hi && isAlnum(text[e]) {
				e++
			}
			if e == k {
				break
			}
			tokv := text[k:e]
			if k > 0 && (text[k-1] == '_' || text[k-1] == '-') || e < len(text) && (text[e] == '_' || text[e] == '-') {
				k = e
				continue
			}
			first := k == j
			switch {
			case first && gapOK && (len(tokv) == 64 || len(tokv) == 66) && reHexKey.MatchString(tokv) && entropy(strings.TrimPrefix(tokv, "0x")) >= 3.0:
				emit(k, e, "crypto-wallet-key")
			case (len(tokv) == 51 || len(tokv) == 52) && reBase58Run.MatchString(tokv) && strings.IndexByte("5KLc9", tokv[0]) >= 0 &&
				(validWIF(tokv) || first && gapOK):
				emit(k, e, "crypto-wallet-key")
			case first && gapOK && (len(tokv) == 87 || len(tokv) == 88) && reBase58Run.MatchString(tokv) && base58Len(tokv) == 64:
				emit(k, e, "crypto-wallet-key")
			default:
				k = e
				continue
			}
			break
		}
	}
}

// byteArray64: text[i:] is 64 integers 0–255 separated by commas and a
// closing ']' (a Solana keypair file); it returns the end before ']'.
func byteArray64(text string, i int) (int, bool) {
	n := 0
	for i < len(text) && n <= 64 {
		for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t') {
			i++
		}
		v, d := 0, 0
		for i < len(text) && isDigit(text[i]) && d < 4 {
			v = v*10 + int(text[i]-'0')
			i++
			d++
		}
		if d == 0 || v > 255 {
			return 0, false
		}
		n++
		for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t') {
			i++
		}
		if i < len(text) && text[i] == ']' {
			return i, n == 64
		}
		if i >= len(text) || text[i] != ',' {
			return 0, false
		}
		i++
	}
	return 0, false
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Decode decodes Bitcoin's base58; nil when a byte is not of it.
func base58Decode(s string) []byte {
	x := new(big.Int)
	b58 := big.NewInt(58)
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base58Alphabet, s[i])
		if d < 0 {
			return nil
		}
		x.Mul(x, b58).Add(x, big.NewInt(int64(d)))
	}
	out := x.Bytes()
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		out = append([]byte{0}, out...)
	}
	return out
}

func base58Len(s string) int { return len(base58Decode(s)) }

// validWIF: s is base58check of 0x80 (mainnet) or 0xef (testnet), a
// 32-byte key and an optional 0x01, with its checksum.
func validWIF(s string) bool {
	b := base58Decode(s)
	if len(b) != 37 && len(b) != 38 || b[0] != 0x80 && b[0] != 0xef {
		return false
	}
	if len(b) == 38 && b[33] != 1 {
		return false
	}
	sum := sha256.Sum256(b[:len(b)-4])
	sum = sha256.Sum256(sum[:])
	return string(sum[:4]) == string(b[len(b)-4:])
}

//go:embed catalogue/bip39-english.txt
var bip39English string

var bip39Words = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, 2048)
	for _, w := range strings.Fields(bip39English) {
		m[w] = true
	}
	return m
})

// seedPhraseAt: from i, 12, 15, 18, 21 or 24 words of the BIP-39 English
// list separated by single blanks, ending the value (a quote, the line's
// end or a separator after it).
func seedPhraseAt(text string, i, hi int) (int, int, bool) {
	words := bip39Words()
	n, k, last := 0, i, i
	for k < hi && n < 25 {
		e := k
		for e < hi && text[e] >= 'a' && text[e] <= 'z' {
			e++
		}
		if e == k || !words[text[k:e]] {
			break
		}
		n++
		last = e
		if e >= hi || text[e] != ' ' {
			break
		}
		k = e + 1
	}
	if n < 12 || n%3 != 0 || n > 24 {
		return 0, 0, false
	}
	if last < len(text) && (isAlnum(text[last]) || text[last] == ' ' && last+1 < len(text) && isAlnum(text[last+1])) {
		return 0, 0, false
	}
	return i, last, true
}

// privateNamesAKey: "private" at p is followed by key, _key, -key or Key
// (private_key, privateKey, PRIVATE-KEY), the name of a wallet's key.
func privateNamesAKey(text string, p int) bool {
	if p < len(text) && (text[p] == '_' || text[p] == '-') {
		p++
	}
	return p+3 <= len(text) && strings.EqualFold(text[p:p+3], "key")
}

var rsaXMLPrivate = regexp.MustCompile(`<(P|Q|DP|DQ|InverseQ|D)>\s*([A-Za-z0-9+/]{16,}={0,2})\s*</(?:P|Q|DP|DQ|InverseQ|D)>`)

// findRSAKeyValue: the base64 values of <P>, <Q>, <DP>, <DQ>, <InverseQ>
// and <D> up to </RSAKeyValue> (a public key has only Modulus and
// Exponent).
func findRSAKeyValue(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		lo := int(h.pos)
		hi := min(len(text), lo+16000)
		if c := strings.Index(text[lo:hi], "</RSAKeyValue>"); c >= 0 {
			hi = lo + c
		}
		for _, m := range rsaXMLPrivate.FindAllStringSubmatchIndex(text[lo:hi], -1) {
			emit(lo+m[4], lo+m[5], "private-key")
		}
	}
}

// walletNameDeny are the words after a key's name that make it name
// something else: its hash, its fingerprint, its id, its path, its
// public half, an address.
var walletNameDeny = []string{"hash", "fingerprint", "digest", "sha", "checksum", "id", "path", "file", "pub", "address", "name", "url", "len", "size", "type"}

// nameNamesNoKey: the identifier (the anchor and the rest of its name)
// goes on past the key with a word of walletNameDeny.
func nameNamesNoKey(ident string) bool {
	l := strings.ToLower(ident)
	for _, w := range []string{"privkey", "priv_key", "private_key", "private-key", "privatekey", "wif", "wallet", "eypair", "signer", "accounts", "m_key(", "id.json"} {
		if i := strings.Index(l, w); i >= 0 {
			l = l[i+len(w):]
			break
		}
	}
	for _, w := range walletNameDeny {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// keystoreNameDeny: words of a keystore's name that make it name
// something else than the file: its password, alias, path, type.
var keystoreNameDeny = []string{"pass", "pwd", "alias", "path", "file", "type", "name", "dir", "url", "trust"}

// findNamedKeystores: NAME[:=] BASE64 where NAME holds keystore, jks,
// p12 or pfx (and no word of keystoreNameDeny), the value a base64 run of
// 200 characters or more (also on the line after a block scalar's |)
// that decodes to binary data.
func findNamedKeystores(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		l, r := int(h.pos), int(h.pos+h.alen)
		for l > 0 && isTokenByte(text[l-1]) {
			l--
		}
		for r < len(text) && (isTokenByte(text[r]) || text[r] == '.') {
			r++
		}
		name := strings.ToLower(text[l:r])
		if l > 0 && (text[l-1] == '/' || text[l-1] == '.') {
			continue // a path or a file name
		}
		deny := false
		for _, w := range keystoreNameDeny {
			deny = deny || strings.Contains(name, w)
		}
		if deny {
			continue
		}
		i := r
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		i = skipBlanks(text, i)
		if i >= len(text) || text[i] != '=' && text[i] != ':' {
			continue
		}
		i = skipBlanks(text, i+1)
		if i < len(text) && text[i] == '|' {
			for i++; i < len(text) && (text[i] == '\n' || text[i] == ' ' || text[i] == '\t' || text[i] == '-'); i++ {
			}
		}
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		e := b64RunEnd(text, i)
		if e-i < 200 || e < len(text) && isTokenByte(text[e]) {
			continue
		}
		b, ok := decodeB64(text[i:e])
		if !ok || len(b) < 150 || printableText(b) {
			continue
		}
		id := "java-keystore"
		if strings.Contains(name, "p12") || strings.Contains(name, "pfx") {
			id = "private-key-pkcs12"
		}
		emit(i, e, id)
	}
}
