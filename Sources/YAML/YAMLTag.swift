/// The tags of the YAML 1.2 core schema in their full form, as nodes carry them (YAML 1.2 §10.3).
///
/// Writing `!!int` in a document is shorthand for `tag:yaml.org,2002:int`.
public enum YAMLTag {
    public static let null = "tag:yaml.org,2002:null"
    public static let bool = "tag:yaml.org,2002:bool"
    public static let int = "tag:yaml.org,2002:int"
    public static let float = "tag:yaml.org,2002:float"
    public static let str = "tag:yaml.org,2002:str"
    public static let seq = "tag:yaml.org,2002:seq"
    public static let map = "tag:yaml.org,2002:map"
    /// The YAML 1.1 merge key type (`<<`), which this parser honours.
    public static let merge = "tag:yaml.org,2002:merge"
    /// The non-specific tag `!`: the node is a string (or a plain collection) whatever it looks like.
    public static let nonSpecific = "!"
}
