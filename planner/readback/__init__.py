"""Resources -> the declared cluster: the one read-back the policy pack and `plan --program` share."""
