"""The table config's index settings, for the segment modules: the model lives on the ground floor
(``type_mapping.table_config``, parsed once on the driver); this name keeps the segment modules' imports."""
from type_mapping.table_config import (BloomSettings, ColumnIndexSettings, JsonIndexSettings,  # noqa: F401
                                       PartitionSettings, TableConfig, TableConfigError, TableIndexSettings,
                                       is_metric, parse_table_config, raw_table_name)
