"""The store contract suite: what "implements graphmem.store.base.Store" means."""
