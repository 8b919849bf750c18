replica_count = 2
