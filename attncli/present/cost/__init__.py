"""attn cost's screen: the cache, the FLOPs and the parameters of each design, its plot."""
