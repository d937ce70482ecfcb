"""Model profiles: what each model takes and how it thinks and calls tools (context window, output limit, thinking,
tools, images, PDFs, sampling), each figure from the user, the provider's model list, the shipped table or a guess."""
