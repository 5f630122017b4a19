// Init script of the gremlin-groovy engine: binds the traversal source `g`
// over the graph named `graph` in the yaml. Nothing else.
def globals = [:]
globals << [g : graph.traversal()]
