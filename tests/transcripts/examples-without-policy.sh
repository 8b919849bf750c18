# A repository holding a copy of examples/ without its policy, before `init`.
examples_root
git rm -q .override-guard.toml && git commit -q -m "no policy yet"
