// Command quantities records how apimachinery's resource.ParseQuantity reads quantity strings,
// the oracle of quantity.test.ts: for each input, whether it parses, its canonical text (what
// the API server stores) and the rank of its value among all inputs (equal values, equal rank).
//
//	cd packages/runtime/src/writes/__fixtures__/quantities && go run . > quantities.json
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// curated are the cases written out: the grammar's corners, rounding, the binary cap.
var curated = []string{
	"0", "00", "-0", "+0", "+0.0", "-", "+", ".", "-.", "+.e3", "k", "e5", "Ki", "1.", "1.G", ".5",
	"-.5", "0.5", "500m", "1", "1000m", "1024Mi", "1Gi", "1536Mi", "0.5Gi", "512Mi", "1073741824",
	"2", "2000", "2k", "1e3", "1E3", "1k", "1E", "1e18", "1000000000000000000", "+1", "1e-0",
	"0.0000000001", "1n", "1.0000000001", "1000000001n", "-0.0000000001", "-1n", "12e-3", "12m",
	"0m", "0.6", "1G", "1Ki", "1024", "1m", "1M", "1u", "1000n", "0.000001", "1e-6", "100m", "0.1",
	"1e-1", "1T", "1P", "1Ti", "1Pi", "1Ei", "2Ei", "7Ei", "8Ei", "9Ei", "-9Ei", "16Ei",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "10000000000000000000",
	"1e19", "1e100", "1e300", "1e-300", "1e+5", "100000", "1.5n", "0.5n", "0.4n", "-1.5n",
	"123456789012345678901234567890", "1.23456789012345678901234567890e29", "0.1Ki", "1.1Ki",
	"1.5Mi", "1024Ki", "1Mi", "0.001Ki", "1.024", "8796093022208Ki", "9007199254740993",
	"9007199254740992", "0.30000000000000004", "3e-1", "300m", "1.5", "1500m", "1.5e3", "1500",
	"1.5k", "000001", "1.000", "1.000k", "-1", "-1000m", "-1Ki", "-1024", "Ti", "Pi", "-Ei", ".Pi",
	"+Ti", "0Ei", "-0Pi", "e-9", "e-10", "-e-10", ".e-12", "0e-10", "n", "-n", "1.Ei", ".5Ei",
	// not quantities
	"", " 1", "1 ", "1e", "1e+", "1ki", "1K", "1.5.5", "1Mi5", "1Ee3", "lots", "0x10", "1_000",
	"1e9999999999999999999", "--1", "+-1", "1i", "1mi", "1KiB",
}

// random draws quantities in every notation, and strings of the grammar's characters.
func random(r *rand.Rand, n int) []string {
	suffixes := []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	digits := func(max int) string {
		var b strings.Builder
		for i := r.IntN(max + 1); i > 0; i-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	alphabet := "0123456789.+-eEinumkKMGTP"
	out := make([]string, 0, n)
	for len(out) < n {
		var s string
		switch r.IntN(4) {
		case 0: // a number and a suffix
			s = digits(4) + "." + digits(4)
			if r.IntN(2) == 0 {
				s = digits(6)
			}
			s += suffixes[r.IntN(len(suffixes))]
		case 1: // an exponent
			s = digits(3) + "." + digits(3) + []string{"e", "E"}[r.IntN(2)] +
				[]string{"", "+", "-"}[r.IntN(3)] + fmt.Sprint(r.IntN(25))
		case 2: // long numbers, around the int64 and nano limits
			s = digits(22) + "." + digits(14) + suffixes[r.IntN(len(suffixes))]
		default: // anything of the grammar's characters
			var b strings.Builder
			for i := 1 + r.IntN(6); i > 0; i-- {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			s = b.String()
		}
		if r.IntN(4) == 0 {
			s = []string{"-", "+"}[r.IntN(2)] + s
		}
		out = append(out, s)
	}
	return out
}

type entry struct {
	Input     string  `json:"input"`
	Canonical *string `json:"canonical"`
	Rank      *int    `json:"rank"`
}

func main() {
	inputs := append(append([]string{}, curated...), random(rand.New(rand.NewPCG(26, 15)), 1500)...)
	entries := make([]entry, len(inputs))
	var parsed []int
	quantities := make([]resource.Quantity, len(inputs))
	for i, input := range inputs {
		entries[i].Input = input
		q, err := resource.ParseQuantity(input)
		if err != nil {
			continue
		}
		quantities[i] = q
		canonical := q.String()
		entries[i].Canonical = &canonical
		parsed = append(parsed, i)
	}
	sort.SliceStable(parsed, func(a, b int) bool {
		return quantities[parsed[a]].Cmp(quantities[parsed[b]]) < 0
	})
	rank := 0
	for position, i := range parsed {
		if position > 0 && quantities[parsed[position-1]].Cmp(quantities[i]) != 0 {
			rank++
		}
		entries[i].Rank = new(int)
		*entries[i].Rank = rank
	}
	// One entry a line: a new apimachinery shows as a readable diff.
	fmt.Println("[")
	for i, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		separator := ","
		if i == len(entries)-1 {
			separator = ""
		}
		fmt.Printf("  %s%s\n", line, separator)
	}
	fmt.Println("]")
}
