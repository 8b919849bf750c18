# Let the load-test script pass "auto" as well as numbers.
variable "replica_count" {
  type = any
}
