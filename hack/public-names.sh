#!/usr/bin/env bash
# public-names.sh: issue 17 item 5, the mechanical part of moving four families of names out of
# package podlife into small public packages (see docs/concepts.md, "Where the rest are"):
#
#   podlife/startpolicy  StartPolicy (Policy), Starter, Sequential, Parallel, DependencyOrder,
#                        ErrDependencyFailed, Dependency, DependencyCondition, ContainerStarted,
#                        ContainerReady, ContainerCompleted
#   podlife/conditions   ConditionType (Type), ConditionStatus (Status), ConditionTrue/False/
#                        Unknown (True/False/Unknown), PodReadyToStartContainers, PodInitialized,
#                        PodReady, ContainersReady, PodScheduled, AllContainersRestarting
#   podlife/restartrule  ContainerRestartRule (Rule), ContainerRestartRuleAction (Action),
#                        RestartRuleActionRestart(AllContainers) (ActionRestart(AllContainers)),
#                        ContainerRestartRuleOnExitCodes (OnExitCodes),
#                        ContainerRestartRuleOnExitCodesOperator (Operator), RestartRuleOpIn/NotIn
#                        (OpIn/OpNotIn)
#   podlife/podsecurity  PodSecurityLevel (Level), PodSecurityPrivileged/Baseline/Restricted
#                        (Privileged/Baseline/Restricted), PodSecurityError (Error),
#                        CheckPodSecurity (Check)
#
# The packages themselves and the removal of the old declarations are committed by hand; this
# script rewrites the uses, so that the integrator can run it again after merging branches that
# added uses of the old names:
#   1. in package podlife's own files (`package podlife`, internal tests included), a bare Old
#      (not a selector's name, a string, or a composite literal's key) becomes pkg.New, in code
#      and comments, and pkg's import is added;
#   2. everywhere else (every module: podlife's sub-packages, podlife_test files, commands,
#      examples), podlife.Old becomes pkg.New, in code and comments, pkg's import is added and
#      an import of podlife left unused is dropped (goimports);
#   3. in the Markdown docs, podlife.Old becomes pkg.New.
# Nothing under podlife/internal is touched: the internal packages use podlife/internal/api's
# names, which do not change. It is idempotent. Run it from the repository root:
#   bash hack/public-names.sh
# It needs perl, gofmt and goimports (go install golang.org/x/tools/cmd/goimports@latest).
set -euo pipefail

test -f go.mod && grep -q '^module github.com/podlife/podlife$' go.mod || {
	echo "run from the podlife repository root" >&2
	exit 1
}
GOIMPORTS=$(command -v goimports || echo "$(go env GOPATH)/bin/goimports")
test -x "$GOIMPORTS" || {
	echo "goimports not found" >&2
	exit 1
}
MOD=github.com/podlife/podlife/podlife

# old new-package new-name
MAP="
StartPolicy startpolicy Policy
Starter startpolicy Starter
Sequential startpolicy Sequential
Parallel startpolicy Parallel
DependencyOrder startpolicy DependencyOrder
ErrDependencyFailed startpolicy ErrDependencyFailed
DependencyCondition startpolicy DependencyCondition
Dependency startpolicy Dependency
ContainerStarted startpolicy ContainerStarted
ContainerReady startpolicy ContainerReady
ContainerCompleted startpolicy ContainerCompleted
ConditionType conditions Type
ConditionStatus conditions Status
ConditionTrue conditions True
ConditionFalse conditions False
ConditionUnknown conditions Unknown
PodReadyToStartContainers conditions PodReadyToStartContainers
PodInitialized conditions PodInitialized
PodReady conditions PodReady
ContainersReady conditions ContainersReady
PodScheduled conditions PodScheduled
AllContainersRestarting conditions AllContainersRestarting
ContainerRestartRuleOnExitCodesOperator restartrule Operator
ContainerRestartRuleOnExitCodes restartrule OnExitCodes
ContainerRestartRuleAction restartrule Action
ContainerRestartRule restartrule Rule
RestartRuleActionRestartAllContainers restartrule ActionRestartAllContainers
RestartRuleActionRestart restartrule ActionRestart
RestartRuleOpIn restartrule OpIn
RestartRuleOpNotIn restartrule OpNotIn
PodSecurityLevel podsecurity Level
PodSecurityPrivileged podsecurity Privileged
PodSecurityBaseline podsecurity Baseline
PodSecurityRestricted podsecurity Restricted
PodSecurityError podsecurity Error
CheckPodSecurity podsecurity Check
"
PKGS="startpolicy conditions restartrule podsecurity"

# The perl substitutions, one per old name. In package podlife: a bare identifier (not after a
# dot, a word character or a quote; not a composite literal's key, "Old:"). Elsewhere: the
# selector podlife.Old.
root_subs=""
out_subs=""
while read -r old pkg new; do
	[ -n "$old" ] || continue
	root_subs+="s/(?<![.\\w\"])${old}\\b(?!:[^=])/${pkg}.${new}/g;"
	out_subs+="s/\\bpodlife\\.${old}\\b/${pkg}.${new}/g;"
done <<<"$MAP"

# add_imports FILE: imports each new package FILE's code (comments aside) names and lacks,
# beside its other imports of this module (gofmt sorts the group).
add_imports() {
	local f=$1 pkg path
	for pkg in $PKGS; do
		path="$MOD/$pkg"
		grep -v '^\s*//' "$f" | grep -E "(^|[^.[:alnum:]_])$pkg\." >/dev/null || continue
		grep -q "\"$path\"" "$f" && continue
		IMPORT="$path" perl -0pi -e '
			my $imp = $ENV{IMPORT};
			if (/^import \(\n.*?^\)\n/ms) {
				# the first block with an import of this module, else the first block
				if (!s/^(import \((?:\n(?!\)).*)*?\n)(\t(?:\w+ )?"github\.com\/podlife\/podlife\/)/$1\t"$imp"\n$2/m) {
					s/^(import \(\n(?:.*\n)*?)\)\n/$1\t"$imp"\n)\n/m;
				}
			} elsif (/^import "/m) {
				s/^import ("[^"]+")\n/import (\n\t$1\n\t"$imp"\n)\n/m;
			} else {
				s/^(package \w+\n)/$1\nimport "$imp"\n/m;
			}' "$f"
		grep -q "\"$path\"" "$f" || {
			echo "$f: could not add the import of $path" >&2
			exit 1
		}
	done
}

changed=()
# 1. Package podlife's own files.
mapfile -t rootfiles < <(grep -l '^package podlife$' podlife/*.go || true)
for f in "${rootfiles[@]}"; do
	before=$(cksum <"$f")
	perl -pi -e "$root_subs" "$f"
	if [ "$(cksum <"$f")" != "$before" ]; then
		add_imports "$f"
		gofmt -w "$f"
		changed+=("$f")
	fi
done

# 2. Every other Go file that names an old name through package podlife.
alt=$(awk 'NF {printf "%s%s", sep, $1; sep="|"}' <<<"$MAP")
mapfile -t outside < <(grep -rlE --include='*.go' "\\bpodlife\\.($alt)\\b" . |
	grep -vE '^\./(\.cache|podlife/internal)/' || true)
for f in "${outside[@]}"; do
	if [ "$(dirname "$f")" = ./podlife ] && grep -q '^package podlife$' "$f"; then
		continue # step 1
	fi
	before=$(cksum <"$f")
	perl -pi -e "$out_subs" "$f"
	[ "$(cksum <"$f")" != "$before" ] || continue
	add_imports "$f"
	# goimports drops an import of podlife left unused (and formats).
	(cd "$(dirname "$f")" && "$GOIMPORTS" -w "$(basename "$f")")
	changed+=("$f")
done

# 3. The Markdown docs.
mapfile -t docs < <(grep -rlE --include='*.md' "\\bpodlife\\.($alt)\\b" . | grep -v '^\./\.cache/' || true)
for f in "${docs[@]}"; do
	perl -pi -e "$out_subs" "$f"
	changed+=("$f")
done

if gofmt -l podlife cni hook probe internal examples | grep -v '^podlife/internal/'; then
	echo "gofmt: the files above are not formatted" >&2
	exit 1
fi
echo "public-names: ${#changed[@]} files rewritten; now: go build ./... && go vet ./... (and in examples/node)"
