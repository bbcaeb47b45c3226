package wikigate

# Path helpers. Paths are repository-relative and already normalized by the
# gateway (no leading "/", no ".", "..", empty segments or backslashes), so
# plain string tests on "/" segment boundaries are exact.

# path_within(p, base) is true when p is base or lies below it on a segment
# boundary: ".../kunora-kgent" covers ".../kunora-kgent/guides" but never
# ".../kunora-kgent-extras".
path_within(p, base) if p == base

path_within(p, base) if startswith(p, concat("", [base, "/"]))

# within_any(p, bases) is true when p lies within one of bases.
within_any(p, bases) if {
	some base in bases
	path_within(p, base)
}

# parent_dir("a/b/c.md") is "a/b"; undefined for a path with no directory.
parent_dir(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if {
	parts := split(p, "/")
	count(parts) > 1
}

# listed(obj, key) is obj[key] when it is a non-empty list; undefined when the
# key is missing or empty, which is how a request leaves a scope part out.
listed(obj, key) := obj[key] if {
	is_array(obj[key])
	count(obj[key]) > 0
}
