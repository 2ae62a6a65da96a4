// Placeholder: Federation 2 entities (@key, resolveReference) are declared here, after every type.
