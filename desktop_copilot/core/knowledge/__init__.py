"""Knowledge sources: the user's folders and files indexed for search, and the search_knowledge tool."""
