-- One version mechanism for every in-memory copy: the catalog's and the
-- promotions' versions become rows of area_versions, as the taxes' and
-- the shipping methods' are, keeping their current values.
INSERT INTO area_versions (area, version)
	SELECT 'catalog', version FROM catalog_version WHERE id = 1;
INSERT INTO area_versions (area, version)
	SELECT 'promotions', version FROM promotions_version WHERE id = 1;
DROP TABLE catalog_version;
DROP TABLE promotions_version;
