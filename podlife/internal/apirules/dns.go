// Package apirules holds rules of the Kubernetes API server's pod validation
// (k8s.io/kubernetes pkg/apis/core/validation) that both podlife's PodSpec validation and the
// manifest converter apply, with the API server's paths and messages.
//
// It imports nothing of this repository and must never import package podlife or podlife/kube,
// which both build on it.
package apirules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The limits of the API server (pkg/apis/core/validation: validatePodDNSConfig), which are
// those of the C library's resolver.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

// DNS checks the nameservers and search domains of a resolv.conf as the API server checks
// dnsConfig (validatePodDNSConfig); p is the dnsConfig's path. Search domains follow its
// relaxed rule (RelaxedDNSSearchValidation, Kubernetes 1.34+): "_" is allowed, and "." alone.
func DNS(p *field.Path, nameservers, searches []string) field.ErrorList {
	var errs field.ErrorList
	if len(nameservers) > maxDNSNameservers {
		errs = append(errs, field.Invalid(p.Child("nameservers"), nameservers,
			fmt.Sprintf("must not have more than %v nameservers", maxDNSNameservers)))
	}
	for i, ns := range nameservers {
		errs = append(errs, validation.IsValidIP(p.Child("nameservers").Index(i), ns)...)
	}
	if len(searches) > maxDNSSearchPaths {
		errs = append(errs, field.Invalid(p.Child("searches"), searches,
			fmt.Sprintf("must not have more than %v search paths", maxDNSSearchPaths)))
	}
	if len(strings.Join(searches, " ")) > maxDNSSearchListChars {
		errs = append(errs, field.Invalid(p.Child("searches"), searches,
			fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, s := range searches {
		if s == "." {
			continue
		}
		s = strings.TrimSuffix(s, ".")
		for _, msg := range validation.IsDNS1123SubdomainWithUnderscore(s) {
			errs = append(errs, field.Invalid(p.Child("searches").Index(i), s, msg))
		}
	}
	return errs
}
