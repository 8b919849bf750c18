# A copy of examples/ with a comment line added to legacy/main.tf, a module with old
# findings, not staged yet.
examples_root
printf '# reviewed\n' >> legacy/main.tf
