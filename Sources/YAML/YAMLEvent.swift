/// A libyaml parser event in Swift terms, with 1-based marks (YAML 1.2 §3.1: the serialization tree).
enum YAMLEvent {
    case streamStart
    case streamEnd
    case documentStart(YAMLMark)
    case documentEnd
    case alias(anchor: String, mark: YAMLMark)
    case scalar(YAMLScalar, anchor: String?)
    case sequenceStart(tag: String?, anchor: String?, style: YAMLCollectionStyle, mark: YAMLMark)
    case sequenceEnd
    case mappingStart(tag: String?, anchor: String?, style: YAMLCollectionStyle, mark: YAMLMark)
    case mappingEnd
}
