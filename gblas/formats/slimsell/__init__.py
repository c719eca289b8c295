"""SlimSell: Sell-C-σ without values (column -1 marks padding), with SlimWork and
SlimChunk (Besta et al., IPDPS'17). The container, builder and CPU kernel are shared
with Sell-C-σ (gblas.formats.sellcs); this package registers them under "slimsell"."""
