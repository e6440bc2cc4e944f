"""Film language in text: reading a caption into atomic statements (decomposition) over the taxonomy.

Shared by the judges (which match statements) and the captioners (which parse model output);
neither owns it.
"""
