# The same, the commands run in examples/.
examples_repo
cd examples
