"""Text handling shared by the metrics and the local judge (no heavy imports)."""
