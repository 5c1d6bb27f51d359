"""Every exchange format the campaign store keeps, one module each: imported and exported back,
losslessly.

Each import checks everything first and writes in the caller's single transaction: a file with any
problem leaves the store as it was (`sepia.store.errors.ImportRefused`). Order is kept through
`position` columns. The bulk writing they share is `sepia.store.bulk`.
"""
