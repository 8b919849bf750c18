# Sourced before each setup of tests/transcripts/ (see tests/docs.rs): a transcript of the
# docs runs in a fresh temporary directory, in the shell this file and its setup prepared.
# OG_EXAMPLES is the repository's examples/.

git() { command git -c init.defaultBranch=main -c commit.gpgsign=false -c core.autocrlf=false "$@"; }

# Everything in the directory, committed.
commit_all() {
  git add -A && git commit -q --no-verify -m "${1:-state}"
}

# A repository holding a copy of examples/ as examples/.
examples_repo() {
  git init -q && cp -R "$OG_EXAMPLES" examples && commit_all examples
}

# A repository whose root is a copy of examples/.
examples_root() {
  git init -q && cp -R "$OG_EXAMPLES"/. . && commit_all examples
}
