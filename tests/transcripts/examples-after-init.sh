# The same after `override-guard init` (step 1 of adopting it).
examples_root
git rm -q .override-guard.toml && git commit -q -m "no policy yet"
override-guard init >/dev/null 2>&1
