package app

// MaxBulkSelection is how many calls one bulk action over a filter
// ("select all matching") may take: the web's bulk form names at most
// this many, and a filter keeping more must be narrowed first.
const MaxBulkSelection = 500
