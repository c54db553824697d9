// Preloaded after tsx in the bench's children that run the built packages: tsx turns Node's
// source maps on and passes every module it loads, the packages' dist bundles included, through
// its transform with an inline source map. The first stack trace formatted (PostgreSQL's
// "relation does not exist" while migrating, say) then parsed the 2.3 MB core bundle's map into
// about a million arrays, some 140 MB of heap kept for the life of the process: a cost the
// shipped `forgelet serve` (no tsx, no source maps) never pays, and which made every full
// collection of the bench's server slower.
process.setSourceMapsEnabled(false);
