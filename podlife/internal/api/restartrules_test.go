package api

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RestartsAfter decides as the kubelet's ContainerShouldRestart.
func TestRestartsAfter(t *testing.T) {
	in := func(op ContainerRestartRuleOnExitCodesOperator, action ContainerRestartRuleAction, v ...int32) ContainerRestartRule {
		return ContainerRestartRule{Action: action, ExitCodes: &ContainerRestartRuleOnExitCodes{Operator: op, Values: v}}
	}
	restart42 := in(RestartRuleOpIn, RestartRuleActionRestart, 42)
	for _, tc := range []struct {
		name      string
		pod       RestartPolicy
		container RestartPolicy
		rules     []ContainerRestartRule
		code      int
		want      bool
	}{
		{"pod Always, exit 0", RestartAlways, "", nil, 0, true},
		{"pod default, exit 0", "", "", nil, 0, true},
		{"pod OnFailure, exit 0", RestartOnFailure, "", nil, 0, false},
		{"pod OnFailure, exit 1", RestartOnFailure, "", nil, 1, true},
		{"pod Never, exit 1", RestartNever, "", nil, 1, false},
		{"container Never in pod Always", RestartAlways, RestartNever, nil, 1, false},
		{"container Always in pod Never", RestartNever, RestartAlways, nil, 0, true},
		{"container OnFailure in pod Never, exit 1", RestartNever, RestartOnFailure, nil, 1, true},
		{"container OnFailure in pod Always, exit 0", RestartAlways, RestartOnFailure, nil, 0, false},
		{"rule In matches", RestartNever, RestartNever, []ContainerRestartRule{restart42}, 42, true},
		{"rule In does not match", RestartNever, RestartNever, []ContainerRestartRule{restart42}, 1, false},
		{"rule In does not match, container Always", RestartNever, RestartAlways, []ContainerRestartRule{restart42}, 1, true},
		{"rule NotIn matches", RestartNever, RestartNever, []ContainerRestartRule{in(RestartRuleOpNotIn, RestartRuleActionRestart, 0)}, 3, true},
		{"rule NotIn does not match", RestartNever, RestartNever, []ContainerRestartRule{in(RestartRuleOpNotIn, RestartRuleActionRestart, 0)}, 0, false},
		{"empty In matches nothing", RestartNever, RestartNever, []ContainerRestartRule{in(RestartRuleOpIn, RestartRuleActionRestart)}, 0, false},
		{"empty NotIn matches all", RestartNever, RestartNever, []ContainerRestartRule{in(RestartRuleOpNotIn, RestartRuleActionRestart)}, 0, true},
		{"first match decides", RestartNever, RestartNever,
			[]ContainerRestartRule{in(RestartRuleOpIn, "Other", 42), restart42}, 42, false},
		{"rules need the container's policy", RestartNever, "", []ContainerRestartRule{restart42}, 42, false},
	} {
		c := ContainerSpec{RestartPolicy: tc.container, RestartPolicyRules: tc.rules}
		if got := RestartsAfter(&c, tc.pod, tc.code); got != tc.want {
			t.Errorf("%s: restarts %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Restartable is the kubelet's IsContainerRestartable.
func TestRestartable(t *testing.T) {
	rule := []ContainerRestartRule{{Action: RestartRuleActionRestart, ExitCodes: &ContainerRestartRuleOnExitCodes{Operator: RestartRuleOpIn, Values: []int32{42}}}}
	for _, tc := range []struct {
		pod, container RestartPolicy
		rules          []ContainerRestartRule
		want           bool
	}{
		{RestartNever, "", nil, false},
		{RestartOnFailure, "", nil, true},
		{RestartAlways, RestartNever, nil, false},
		{RestartNever, RestartNever, rule, true},
		{RestartNever, RestartOnFailure, nil, true},
	} {
		c := ContainerSpec{RestartPolicy: tc.container, RestartPolicyRules: tc.rules}
		if got := Restartable(&c, tc.pod); got != tc.want {
			t.Errorf("pod %q container %q rules %d: %v, want %v", tc.pod, tc.container, len(tc.rules), got, tc.want)
		}
	}
}

// validateContainerRestart words its errors as the API server with ContainerRestartRules on.
func TestValidateContainerRestart(t *testing.T) {
	rule := func(action ContainerRestartRuleAction, op ContainerRestartRuleOnExitCodesOperator, n int) ContainerRestartRule {
		return ContainerRestartRule{Action: action, ExitCodes: &ContainerRestartRuleOnExitCodes{Operator: op, Values: make([]int32, n)}}
	}
	ok := rule(RestartRuleActionRestart, RestartRuleOpIn, 1)
	for _, tc := range []struct {
		name   string
		init   bool
		policy RestartPolicy
		rules  []ContainerRestartRule
		want   string
	}{
		{"app, none", false, "", nil, ""},
		{"app Never with a rule", false, RestartNever, []ContainerRestartRule{ok}, ""},
		{"app Always", false, RestartAlways, nil, ""},
		{"init OnFailure", true, RestartOnFailure, []ContainerRestartRule{ok}, ""},
		{"sidecar", true, RestartAlways, nil, ""},
		{"app bad policy", false, "Sometimes", nil,
			`c.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`},
		{"init bad policy", true, "Sometimes", nil,
			`c.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`},
		{"rules without policy", false, "", []ContainerRestartRule{ok},
			`c.restartPolicy: Required value: must specify restartPolicy when restart rules are used`},
		// Allowed with RestartAllContainersOnContainerExits (beta, on since 1.36).
		{"sidecar rules", true, RestartAlways, []ContainerRestartRule{ok}, ``},
		{"action", false, RestartNever, []ContainerRestartRule{rule("Ignore", RestartRuleOpIn, 1)},
			`c.restartPolicyRules[0].action: Unsupported value: "Ignore": supported values: "Restart", "RestartAllContainers"`},
		{"operator", false, RestartNever, []ContainerRestartRule{rule(RestartRuleActionRestart, "Is", 1)},
			`c.restartPolicyRules[0].exitCodes.operator: Unsupported value: "Is": supported values: "In", "NotIn"`},
		{"exit codes missing", false, RestartNever, []ContainerRestartRule{{Action: RestartRuleActionRestart}},
			`c.restartPolicyRules[0].exitCodes: Required value: must be specified`},
		{"too many values", false, RestartNever, []ContainerRestartRule{rule(RestartRuleActionRestart, RestartRuleOpIn, 256)},
			`c.restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items`},
		{"too many rules", false, RestartNever, make21(ok), `c.restartPolicyRules: Too many: 21: must have at most 20 items`},
	} {
		c := ContainerSpec{RestartPolicy: tc.policy, RestartPolicyRules: tc.rules}
		var got []string
		for _, e := range validateContainerRestart(field.NewPath("c"), &c, tc.init) {
			got = append(got, e.Error())
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func make21(r ContainerRestartRule) []ContainerRestartRule {
	out := make([]ContainerRestartRule, 21)
	for i := range out {
		out[i] = r
	}
	return out
}

// A pod's hostname may be a DNS-1123 subdomain (Kubernetes' hostnameOverride) of up to 63
// characters.
func TestValidateHostname(t *testing.T) {
	for _, tc := range []struct {
		hostname string
		ok       bool
	}{
		{"web", true},
		{"override.example.host", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"Web_1", false},
		{"a..b", false},
	} {
		err := (&PodSpec{Name: "p", Hostname: tc.hostname, Containers: []ContainerSpec{{Name: "c", Image: "busybox"}}}).Validate()
		if (err == nil) != tc.ok {
			t.Errorf("hostname %q: err %v, want ok %v", tc.hostname, err, tc.ok)
		}
	}
}
