package eviction

import (
	"fmt"
	"strconv"
	"strings"
)

var (
	binarySuffixes  = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	decimalSuffixes = []string{"", "k", "M", "G", "T", "P", "E"}
)

// FormatQuantity writes a byte count as a Kubernetes quantity the way a user most likely
// wrote it: with the largest binary suffix that divides it exactly ("20Mi"), else the largest
// decimal one ("1G"), else in plain digits.
func FormatQuantity(n int64) string {
	if n == 0 {
		return "0"
	}
	b, bi := n, 0
	for b%1024 == 0 && bi < len(binarySuffixes)-1 {
		b, bi = b/1024, bi+1
	}
	d, di := n, 0
	for d%1000 == 0 && di < len(decimalSuffixes)-1 {
		d, di = d/1000, di+1
	}
	if bi == 0 && di > 0 {
		return strconv.FormatInt(d, 10) + decimalSuffixes[di]
	}
	return strconv.FormatInt(b, 10) + binarySuffixes[bi]
}

// parseQuantity reads a non-negative whole quantity of bytes: digits with an optional binary
// (Ki … Ei) or decimal (k … E) suffix.
func parseQuantity(s string) (uint64, error) {
	mult := uint64(1)
	num := s
	for i := len(binarySuffixes) - 1; i > 0; i-- {
		if strings.HasSuffix(s, binarySuffixes[i]) {
			num, mult = strings.TrimSuffix(s, binarySuffixes[i]), 1<<(10*i)
			break
		}
		if strings.HasSuffix(s, decimalSuffixes[i]) {
			num = strings.TrimSuffix(s, decimalSuffixes[i])
			for range i {
				mult *= 1000
			}
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("quantity %q: want digits with an optional suffix (Ki, Mi, Gi, k, M, G …)", s)
	}
	if n > 0 && mult > ^uint64(0)/n {
		return 0, fmt.Errorf("quantity %q: too large", s)
	}
	return n * mult, nil
}
