# A repository holding examples/, where the README's commands run.
examples_repo
